package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// StdinName is how an input read from stdin is named in messages.
const StdinName = "<stdin>"

// readBufSize is large so that a file streams in few read calls: the output
// is flushed before each of them.
var readBufSize = 256 << 10

// codecs are the compressions an input is recognised in, by their magic
// bytes (at most maxMagic of them).
var codecs = [...]struct {
	name  string
	magic []byte
}{{"gzip", []byte{0x1f, 0x8b}}, {"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}}}

const maxMagic = 4

// source is an opened input: its records come from reader.
type source struct {
	Name   string
	br     *bufio.Reader
	raw    io.Reader // what br reads from: read directly by readBlock
	closer []io.Closer

	file       *os.File // the file opened by name, nil for stdin
	compressed bool     // gzip or zstd: its end is the end of a frame

	// plain is the input when it is a regular file read as stored (not
	// compressed): the rest of a long line can be looked at before it is
	// read (restOfLine). nil otherwise.
	plain *os.File
}

// restOfLine returns how many bytes of a plain file are left of the line
// being read, from the read position up to and including its '\n', or up to
// the end of the file when none follows; 0 when that cannot be known (not
// a plain file, or nothing left). The file is looked at with ReadAt into
// *scratch, and the reading position does not move.
func (s *source) restOfLine(scratch *[]byte) int64 {
	if s.plain == nil {
		return 0
	}
	pos, err := s.plain.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	pos -= int64(s.br.Buffered())
	if *scratch == nil {
		*scratch = make([]byte, 64<<10)
	}
	buf := *scratch
	for off := pos; ; {
		n, err := s.plain.ReadAt(buf, off)
		if line, rest := cutLine(buf[:n]); rest != nil {
			return off + int64(len(line)) - pos
		}
		off += int64(n)
		if err != nil {
			if err == io.EOF {
				return off - pos
			}
			return 0
		}
	}
}

// stillWritten reports whether the source is a plain (not compressed)
// regular file that was modified less than window ago, or whose
// modification time is in the future: a producer may still be writing
// its last line.
func (s *source) stillWritten(window time.Duration) bool {
	if s.file == nil || s.compressed {
		return false
	}
	fi, err := s.file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return time.Since(fi.ModTime()) < window
}

// Close releases the file and decompressor behind the source.
func (s *source) Close() error {
	var first error
	for i := len(s.closer) - 1; i >= 0; i-- {
		if err := s.closer[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	s.closer = nil
	return first
}

// idleReader calls idle before every read of the underlying input, the only
// moment the process can block waiting for data: that is when buffered
// output must go out so a live consumer sees it.
type idleReader struct {
	r     io.Reader
	idle  func()
	meter Meter // told of every read, nil for none
}

func (r idleReader) Read(p []byte) (n int, err error) {
	if r.idle != nil {
		r.idle()
	}
	if r.meter != nil {
		// Deferred first, so run last: with the output guard held
		// again, as the meter may write on stderr.
		defer func() { r.meter.Read(n) }()
	}
	if mu := guard.Load(); mu != nil {
		// The output is flushed: a signal may stop the tool here.
		mu.Unlock()
		defer mu.Lock()
	}
	return r.r.Read(p)
}

// open opens the input called name: "-" is stdin, anything else a file.
// Compressed input (gzip, zstd) is recognised by its magic bytes and
// decompressed. idle, when not nil, is called before every blocking read;
// meter, when not nil, is told of every read of the input as stored.
func open(name string, stdin io.Reader, idle func(), meter Meter) (*source, error) {
	src := &source{Name: name}
	var r io.Reader
	if name == "-" {
		src.Name = StdinName
		r = stdin
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				src.plain = f // `tool < file`
			}
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, FileError(name, err)
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			f.Close()
			return nil, FileError(name, syscall.EISDIR)
		}
		src.closer = append(src.closer, f)
		src.file = f
		if err == nil && st.Mode().IsRegular() {
			src.plain = f
		}
		r = f
	}
	return src, src.wrap(idleReader{r, idle, meter})
}

func (s *source) wrap(r io.Reader) error {
	br := bufio.NewReaderSize(r, readBufSize)
	s.raw = r
	// Peek one byte first: a live producer may have written a short first
	// line and be waiting, and neither magic starts like JSON does.
	b, err := br.Peek(1)
	if err == io.EOF && s.plain == nil {
		// The input is empty. On a terminal its end was one Ctrl-D, a read
		// of no bytes, which the Peek has taken: a second read would wait
		// for another Ctrl-D. (A regular file is read again: it may grow.)
		s.raw = eofReader{}
		s.br = bufio.NewReaderSize(s.raw, 16)
		return nil
	}
	codec := ""
	if err == nil {
		if _, more := codecOf(b); more {
			b, _ = br.Peek(maxMagic)
		}
		codec, _ = codecOf(b)
	}
	if codec == "" {
		s.br = br
		return nil
	}
	dec, closer, err := decoder(codec, br)
	if err != nil {
		s.Close()
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	s.closer = append(s.closer, closer)
	s.compressed, s.plain = true, nil
	s.raw = dec
	s.br = bufio.NewReaderSize(s.raw, readBufSize)
	return nil
}

// codecOf is the one test of whether an input is compressed: the codec
// ("gzip", "zstd") whose magic bytes its first bytes, head, start with;
// "" for an input stored as is. more reports a head too short to tell,
// the start of a magic (a file still being written).
func codecOf(head []byte) (codec string, more bool) {
	for _, c := range codecs {
		if bytes.HasPrefix(head, c.magic) {
			return c.name, false
		}
		more = more || len(head) > 0 && bytes.HasPrefix(c.magic, head)
	}
	return "", more
}

// decoder decompresses r, of the codec codecOf named; its errors, and
// those of its reads, say the codec (codecError).
func decoder(codec string, r io.Reader) (io.Reader, io.Closer, error) {
	if codec == "gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, codecError{codec, err}
		}
		return codecReader{zr, codec}, zr, nil
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, nil, codecError{codec, err}
	}
	return codecReader{zr, codec}, zstdCloser{zr}, nil
}

// codecReader names the decompressor in its errors, so that a corrupt
// frame is reported as "zstd: ..." or "gzip: ..." whichever library wrote
// the message.
type codecReader struct {
	r     io.Reader
	codec string
}

func (c codecReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = codecError{c.codec, err}
	}
	return n, err
}

// codecError is a decompressor's error, said once as "codec: message"
// (gzip's own errors already start with "gzip: ").
type codecError struct {
	codec string
	err   error
}

func (e codecError) Error() string {
	msg := e.err.Error()
	if strings.HasPrefix(msg, e.codec+": ") {
		return msg
	}
	return e.codec + ": " + msg
}

func (e codecError) Unwrap() error { return e.err }

type zstdCloser struct{ d *zstd.Decoder }

func (z zstdCloser) Close() error { z.d.Close(); return nil }

// FileError words the failure to open or read the file called name, the
// one way every evtools message does: "NAME: no such file", "NAME:
// permission denied", "NAME: is a directory", else "NAME: " and the
// system's reason, without the operation and path that *fs.PathError adds.
func FileError(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", name, err)
}

// RegularFiles reports whether every input named (none or "-" is stdin)
// is a regular file, or a folder (an archive's files, see Expand): a
// stored log whose end is known, not a pipe, a terminal or a device. Only
// then may a tool read ahead of its output or cut the input into parts,
// since nothing live waits on it.
func RegularFiles(names []string, stdin io.Reader) bool {
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, n := range names {
		st, err := StatInput(n, stdin)
		if err != nil || !st.Mode().IsRegular() && !st.IsDir() {
			return false
		}
	}
	return true
}

// errStdinNotFile is StatInput's error for a stdin that is no *os.File (a
// test's buffer): there is nothing to stat.
var errStdinNotFile = errors.New("stdin is not a file")

// StatInput stats the input named name, where "-" is stdin.
func StatInput(name string, stdin io.Reader) (fs.FileInfo, error) {
	if name != "-" {
		return os.Stat(name)
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return nil, errStdinNotFile
	}
	return f.Stat()
}

// eofReader is an input that has ended, and stays ended.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
