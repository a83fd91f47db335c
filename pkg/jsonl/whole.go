package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"

	"github.com/klauspost/compress/zstd"
)

// ReadFile reads the whole of the file called name into buf (from its
// start, grown as needed), decompressed when it is gzip or zstd, for a
// tool that reads whole files on goroutines of its own (evimport converts
// a session's files together). Unlike a source it never touches the
// output guard: it may run on any goroutine. Its errors start with the
// file's name, as Each reports them: one that keeps the file from being
// opened is worded by FileError; one found while reading comes with the
// whole lines read before it, as Each hands over the lines before a read
// error (not the piece of a line the error cut).
func ReadFile(name string, buf []byte) ([]byte, error) {
	w := WholeReader{raw: buf}
	return w.ReadFile(name)
}

// A WholeReader reads files whole, as ReadFile does, into buffers and a
// decoder it keeps from file to file: a worker that reads many small
// compressed files (an archive's day segments) then makes no garbage a
// file, which would make the collector run at every one. The zero
// WholeReader is ready; one goroutine uses it at a time.
type WholeReader struct {
	raw, out []byte
	zstd     *zstd.Decoder
}

// ReadFile is ReadFile into the WholeReader's buffers: what it returns is
// good until its next read.
func (w *WholeReader) ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return w.raw[:0], FileError(name, err)
	}
	defer f.Close()
	size := 0
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			return w.raw[:0], FileError(name, syscall.EISDIR)
		}
		size = int(st.Size())
	}
	return w.read(name, f, size+1)
}

// A Head reads the start of a regular file a piece at a time, for a tool
// that needs a file's first lines only and stops once they tell it enough
// (evimport finds most files' format and session there), where reading
// the whole file would read it twice. The zero Head is closed; a Head
// opened again reads into the memory it read the last file into.
type Head struct {
	f     *os.File
	Data  []byte // the file's first bytes, as far as read
	Size  int64  // the file's size as stored when it was opened
	Whole bool   // Data is the whole file, as it was when read (it may have grown since)
	tail  []byte
}

// Open opens the regular file called name, to read its head. It reports
// false, holding nothing open, when the head is not to be had this way
// (the file cannot be opened, or is no regular file): the caller reads
// it with ReadFile, which says what is wrong.
func (h *Head) Open(name string) bool {
	h.Close()
	*h = Head{Data: h.Data[:0], tail: h.tail}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return false
	}
	h.f, h.Size = f, st.Size()
	return true
}

// Read reads on until Data holds n bytes, or the whole file. It reports
// false when the head is not to be had this way after all: the file is
// compressed, or cannot be read (the caller reads it with ReadFile).
func (h *Head) Read(n int) bool {
	if h.f == nil {
		return false
	}
	if at := len(h.Data); !h.Whole && at < n {
		h.Data = slices.Grow(h.Data, n-at)[:n]
		got, err := io.ReadFull(h.f, h.Data[at:])
		h.Data = h.Data[:at+got]
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return false
		}
		// the end was met before n bytes: this is the whole file
		h.Whole = at+got < n
	}
	codec, _ := codecOf(h.Data)
	return codec == ""
}

// Lines is Data up to the end of its last line: the lines read whole,
// for a reader that looks at them before it has read the file to its end.
func (h *Head) Lines() []byte { return WholeLines(h.Data) }

// ReadRest reads the rest of the file, so that Data is the whole of it;
// it reports false as Read does.
func (h *Head) ReadRest() bool {
	if !h.Read(len(h.Data) + 1) {
		return false
	}
	if !h.Whole {
		var err error
		// room for the rest as Open found it (appendAll would start
		// afresh); none when the file has grown past it since, and
		// appendAll grows Data as it reads
		h.Data = slices.Grow(h.Data, max(int(h.Size)+1-len(h.Data), 0))
		if h.Data, err = appendAll(h.f, h.Data, 0); err != nil {
			return false
		}
		h.Whole = true
	}
	return true
}

// Tail reads the last n bytes, at most, of the file as Open found it,
// and returns its whole lines there: from just after the first newline,
// to the end of the last line. It returns nil when they cannot be read.
// What it returns is good until the next Tail.
func (h *Head) Tail(n int) []byte {
	if h.f == nil {
		return nil
	}
	from := max(h.Size-int64(n), 0)
	h.tail = slices.Grow(h.tail[:0], int(h.Size-from))
	data := h.tail[:h.Size-from]
	got, err := h.f.ReadAt(data, from)
	if err != nil && err != io.EOF {
		return nil
	}
	data = WholeLines(data[:got])
	if from > 0 {
		// the first line is cut, unless the byte before it ends a line:
		// it is left out either way, as a head's last cut one is
		_, data = cutLine(data)
	}
	return data
}

// Close lets the file go.
func (h *Head) Close() {
	if h.f != nil {
		h.f.Close()
		h.f = nil
	}
}

// ReadAll is ReadFile for an input already open, r, called name in
// errors (StdinName for standard input): all of it, decompressed.
func ReadAll(name string, r io.Reader) ([]byte, error) {
	var w WholeReader
	return w.read(name, r, 64<<10)
}

// read reads all of r, called name, (room for hint bytes made first),
// decompressed when it is gzip or zstd.
func (w *WholeReader) read(name string, r io.Reader, hint int) ([]byte, error) {
	var err error
	if w.raw, err = appendAll(r, w.raw[:0], hint); err != nil {
		return WholeLines(w.raw), FileError(name, err)
	}
	codec, _ := codecOf(w.raw)
	switch codec {
	case "":
		return w.raw, nil
	case "zstd":
		// a whole frame is decoded at once, into memory kept for the next
		if w.zstd == nil {
			w.zstd, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		}
		if w.out, err = w.zstd.DecodeAll(w.raw, w.out[:0]); err != nil {
			return WholeLines(w.out), fmt.Errorf("%s: %w", name, codecError{codec, err})
		}
		return w.out, nil
	}
	dec, closer, err := decoder(codec, bytes.NewReader(w.raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer closer.Close()
	if w.out, err = appendAll(dec, w.out[:0], 4*len(w.raw)); err != nil {
		return WholeLines(w.out), fmt.Errorf("%s: %w", name, err)
	}
	return w.out, nil
}

// appendAll appends what r holds to dst, room for about hint bytes made
// first.
func appendAll(r io.Reader, dst []byte, hint int) ([]byte, error) {
	if cap(dst) < hint {
		dst = make([]byte, 0, hint)
	}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
