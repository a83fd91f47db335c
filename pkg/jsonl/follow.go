package jsonl

import (
	"encoding/hex"
	"hash/fnv"
	"io"
	"math"
	"os"
)

// FollowState is what a Follower knows of its file between two reads:
// where it read to, and what tells it that the file under the name is
// still the one it read. It is plain data, written to a file (as JSON)
// and given back to a Follower in a later run, which then goes on where
// this one stopped, or starts again when the file was truncated,
// rewritten or replaced meanwhile.
type FollowState struct {
	// Dev and Ino are the file's identity where the system has one (0
	// elsewhere): another file under the name is a rotation.
	Dev uint64 `json:"dev,omitempty"`
	Ino uint64 `json:"ino,omitempty"`
	// Size and ModTime (Unix nanoseconds) are the file's as last looked
	// at: unchanged, it is not read.
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime,omitempty"`
	// Offset is where the records handed over end: after the '\n' of
	// the last whole line. A half-written line after it is read again
	// until its '\n' comes, so that nothing of it needs keeping.
	Offset int64 `json:"offset"`
	// Line is the number of lines up to Offset, blank ones counted.
	Line int `json:"line"`
	// Mark is a fingerprint of the bytes read (up to Offset: the first
	// and the last markSize of them): bytes there that differ now mean
	// the file was rewritten, and it is read from its start again.
	Mark string `json:"mark,omitempty"`
	// Compressed: the file is gzip or zstd, read whole once it
	// decompresses whole (a compressed file is not appended to); any
	// change after that is a new file.
	Compressed bool `json:"compressed,omitempty"`
}

// seen reports whether the state describes a file looked at.
func (s *FollowState) seen() bool {
	return s.ModTime != 0 || s.Size != 0 || s.Offset != 0 || s.Dev != 0 || s.Ino != 0
}

// markSize is how many bytes at each end of what was read make Mark.
const markSize = 1024

// Change is what a Follower found when it looked at its file.
type Change int

const (
	// Unchanged: the file is as last read (or there is none, as before).
	Unchanged Change = iota
	// Grown: the file changed (or appeared); Read reads what it gained.
	Grown
	// Restarted: the file under the name is another one (renamed away,
	// rotated), or was truncated or its start rewritten: what was read
	// of it is not its content any more, and Read reads it from its
	// start.
	Restarted
	// Gone: no file is under the name now. Should one come, it is read
	// from its start.
	Gone
)

// A Follower reads a file that is being written, as tail -F follows it:
// each Read hands over the records of the lines ended since the last
// one, a half-written last line waiting for its '\n'. The records are
// framed as every other reading mode frames them (a BOM on the first
// line, '\r', blank lines; a line holding a NUL byte is reported bad,
// with ErrNUL), so that the records a Follower hands over, from the
// last restart on, are those a one-shot read of the file yields, but for
// a last line without '\n'. A compressed file (gzip, zstd, by its first
// bytes) is read whole, once it decompresses whole.
//
// Look says what changed since the last Read: a file truncated
// (shorter than what was read), replaced by another file under its name
// (another device and inode), or whose bytes read differ now (Mark) is
// read again from its start, and Look says Restarted so that the caller
// knows the records before are not the file's any more.
//
// State is all the Follower keeps between reads: set it from a saved
// state to go on where an earlier run stopped.
type Follower struct {
	Name  string
	State FollowState

	buf []byte
}

// Look looks at the file and says what changed since the last Read; on
// Restarted and Gone, State is reset to read a file from its start.
func (f *Follower) Look() Change {
	st := &f.State
	fi, err := os.Stat(f.Name)
	if err != nil {
		if st.seen() {
			*st = FollowState{}
			return Gone
		}
		return Unchanged
	}
	dev, ino := FileID(fi)
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	change := Grown
	switch {
	case !st.seen():
	case dev != st.Dev || ino != st.Ino, size < st.Offset:
		change = Restarted
	case size == st.Size && mtime == st.ModTime:
		return Unchanged
	case st.Compressed:
		change = Restarted // written again: not appended to
	case st.Offset > 0 && f.mark(st.Offset) != st.Mark:
		change = Restarted
	}
	if change == Restarted {
		*st = FollowState{}
	}
	st.Dev, st.Ino, st.Size, st.ModTime = dev, ino, size, mtime
	return change
}

// Read hands fn the records of the lines ended since the last Read
// (after Look, which says whether there are any), each with its file
// and line; a line holding a NUL byte is reported to in instead
// (Input.Bad, ErrNUL), and in's error (ErrStrict) ends the reading, as
// one of fn's does. A file that cannot be read now (gone since Look) is
// an error worded by FileError; nothing was read then.
func (f *Follower) Read(in *Input, fn func(Record) error) error {
	st := &f.State
	if st.Compressed {
		return nil
	}
	file, err := os.Open(f.Name)
	if err != nil {
		return FileError(f.Name, err)
	}
	defer file.Close()
	if st.Offset == 0 {
		var magic [4]byte
		n, _ := file.ReadAt(magic[:], 0)
		switch codec, more := codecOf(magic[:n]); {
		case codec != "":
			return f.readCompressed(in, fn)
		case more:
			return nil // too short to tell: no line ends here yet
		}
	}
	f.buf, err = appendAll(io.NewSectionReader(file, st.Offset, math.MaxInt64-st.Offset), f.buf[:0], 0)
	if err != nil {
		return FileError(f.Name, err)
	}
	data := WholeLines(f.buf)
	if len(data) == 0 {
		return nil
	}
	err = f.frame(in, data, fn)
	st.Mark = f.mark(st.Offset)
	return err
}

// frame hands over the records of data, the lines after Offset, moving
// Offset and Line past each as it goes.
func (f *Follower) frame(in *Input, data []byte, fn func(Record) error) error {
	st := &f.State
	offset, lines := st.Offset, st.Line
	var err error
	n := frame(data, lines == 0, false, func(line, end int, rec []byte, nul bool) bool {
		st.Line, st.Offset = lines+line, offset+int64(end)
		r := Record{Data: rec, File: f.Name, Line: st.Line}
		if nul {
			err = in.Bad(r, ErrNUL)
		} else {
			err = fn(r)
		}
		return err == nil
	}, nil, nil)
	if err == nil {
		// past the blank lines after the last record too
		st.Line, st.Offset = lines+n, offset+int64(len(data))
	}
	return err
}

// readCompressed reads a compressed file whole, as a pass reads it (its
// last line whole with or without '\n'), once it decompresses whole: one
// still being written is waited for.
func (f *Follower) readCompressed(in *Input, fn func(Record) error) error {
	data, err := ReadFile(f.Name, f.buf)
	if err != nil {
		return nil // cut short: being written
	}
	f.buf = data
	st := &f.State
	st.Compressed = true
	err = f.frame(in, data, fn)
	st.Offset = st.Size // as stored: Look compares sizes
	return err
}

// mark is the fingerprint of the file's first off bytes: its first and
// last markSize of them; "" when they cannot be read.
func (f *Follower) mark(off int64) string {
	file, err := os.Open(f.Name)
	if err != nil {
		return ""
	}
	defer file.Close()
	h := fnv.New64a()
	var buf [markSize]byte
	for _, at := range []int64{0, max(off-markSize, markSize)} {
		n := min(off-at, markSize)
		if n <= 0 {
			break
		}
		if _, err := file.ReadAt(buf[:n], at); err != nil {
			return ""
		}
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil))
}
