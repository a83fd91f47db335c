package cursor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/gofrs/flock"
)

// Cursor identifies one event of a log: the event a run passed last. seq
// alone is ambiguous (a restarted producer counts from 1 again), so the
// cursor also holds run_id, ts and a hash of the line's bytes. Seq, RunID
// and TS are raw JSON as they were in the event, so no digit is lost.
type Cursor struct {
	Seq   json.RawMessage `json:"seq"`
	RunID json.RawMessage `json:"run_id,omitempty"`
	TS    json.RawMessage `json:"ts,omitempty"`
	Hash  string          `json:"sha256"`         // hex SHA-256 of the line, without its line ending
	File  string          `json:"file,omitempty"` // where it was read, for people only
	Line  int             `json:"line,omitempty"` // its line number there, for people only
}

// State is the content of a --state file: the current cursor, and the
// pending one a --defer run left for --commit.
type State struct {
	Version int     `json:"version"`
	Cursor  *Cursor `json:"cursor"`
	Pending *Cursor `json:"pending,omitempty"`
}

// StateVersion is the format written; a file with a higher version is
// refused rather than misread.
const StateVersion = 1

// CursorOf builds the cursor of a scanned event (whose seq is valid).
func CursorOf(e *Event, file string, line int) *Cursor {
	sum := sha256.Sum256(e.Line)
	c := &Cursor{
		Seq:  append(json.RawMessage(nil), e.Seq...),
		Hash: hex.EncodeToString(sum[:]),
		File: file,
		Line: line,
	}
	if e.RunID != nil {
		c.RunID = append(json.RawMessage(nil), e.RunID...)
	}
	if e.TS != nil {
		c.TS = append(json.RawMessage(nil), e.TS...)
	}
	return c
}

// Same reports whether two cursors name the same event (File and Line are
// only notes and do not count).
func (c *Cursor) Same(d *Cursor) bool {
	if c == nil || d == nil {
		return c == d
	}
	return bytes.Equal(c.Seq, d.Seq) && bytes.Equal(c.RunID, d.RunID) &&
		bytes.Equal(c.TS, d.TS) && c.Hash == d.Hash
}

// String describes the cursor for messages: seq 812, run r_1, ts 1758800000.12.
func (c *Cursor) String() string {
	s := "seq " + Short(c.Seq)
	if c.RunID != nil {
		s += ", run_id " + Short(c.RunID)
	}
	if c.TS != nil {
		s += ", ts " + Short(c.TS)
	}
	return s
}

func (c *Cursor) validate() error {
	if c == nil {
		return nil
	}
	if _, err := ParseSeq(c.Seq); err != nil {
		return fmt.Errorf("seq %s is %w", c.Seq, ErrNotSeq)
	}
	if len(c.Hash) != 2*sha256.Size {
		return errors.New("sha256 is not a SHA-256 in hex")
	}
	if _, err := hex.DecodeString(c.Hash); err != nil {
		return errors.New("sha256 is not a SHA-256 in hex")
	}
	// run_id and ts are kept as they were, null included: they are
	// compared byte for byte with the events.
	return nil
}

// ParseState reads the content of a state file. An empty file (or only
// whitespace) is a state without a cursor, so `touch FILE` is a valid
// start.
func ParseState(data []byte) (*State, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &State{Version: StateVersion}, nil
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not an evcursor state: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not an evcursor state: more than one JSON value")
	}
	if s.Version < 1 || s.Version > StateVersion {
		return nil, fmt.Errorf("state format version %d is not supported (this evcursor reads %d)", s.Version, StateVersion)
	}
	if err := s.Cursor.validate(); err != nil {
		return nil, fmt.Errorf("cursor: %v", err)
	}
	if err := s.Pending.validate(); err != nil {
		return nil, fmt.Errorf("pending: %v", err)
	}
	return &s, nil
}

// Marshal is the file content: indented JSON a person can read, ending in
// a newline. The raw values (seq, run_id, ts) are written exactly as they
// were in the event: encoding/json would re-indent an object and escape
// '<' as \u003c, and the cursor would no longer match its event.
func (s *State) Marshal() []byte {
	s.Version = StateVersion
	b := []byte("{\n  \"version\": ")
	b = strconv.AppendInt(b, int64(s.Version), 10)
	b = append(b, ",\n  \"cursor\": "...)
	b = s.Cursor.append(b)
	if s.Pending != nil {
		b = append(b, ",\n  \"pending\": "...)
		b = s.Pending.append(b)
	}
	return append(b, "\n}\n"...)
}

func (c *Cursor) append(b []byte) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, "{\n    \"seq\": "...)
	b = append(b, c.Seq...)
	if c.RunID != nil {
		b = append(b, ",\n    \"run_id\": "...)
		b = append(b, c.RunID...)
	}
	if c.TS != nil {
		b = append(b, ",\n    \"ts\": "...)
		b = append(b, c.TS...)
	}
	b = append(b, ",\n    \"sha256\": "...)
	b = jsontext.AppendString(b, c.Hash)
	if c.File != "" {
		b = append(b, ",\n    \"file\": "...)
		b = jsontext.AppendString(b, c.File)
	}
	if c.Line != 0 {
		b = append(b, ",\n    \"line\": "...)
		b = strconv.AppendInt(b, int64(c.Line), 10)
	}
	return append(b, "\n  }"...)
}

// Equal reports whether two states hold the same cursors.
func (s *State) Equal(t *State) bool {
	return s.Cursor.Same(t.Cursor) && s.Pending.Same(t.Pending)
}

// LoadState reads the state file at path. A missing file is a state
// without a cursor.
func LoadState(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &State{Version: StateVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := ParseState(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// SaveState replaces the file at path with s atomically: the content goes
// to a temporary file in the same folder, is synced, renamed over path, and
// the folder is synced, so a crash at any instant leaves the old state or
// the new one, never a torn file. Call it with the lock held.
func SaveState(path string, s *State) error {
	return WriteFileAtomic(path, s.Marshal())
}

// WriteFileAtomic writes data to path by temporary file, fsync, rename and
// fsync of the folder.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, base+tempInfix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// tempInfix names the temporary files of WriteFileAtomic: FILE.tmp-123.
const tempInfix = ".tmp-"

// RemoveStaleTemps deletes the temporary files a killed save left beside
// path. Call it only with the lock held: then no save is under way.
func RemoveStaleTemps(path string) {
	matches, _ := filepath.Glob(globEscape(path) + tempInfix + "*")
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), filepath.Base(path)+tempInfix) {
			os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ErrBusy says another run holds the state file's lock.
var ErrBusy = errors.New("in use by another evcursor run")

// Lock takes the lock of the state file at path: an flock on path+".lock",
// without waiting. It returns ErrBusy when another process holds it. The
// lock file stays on disk (removing it would let two runs lock two
// different files).
func Lock(path string) (unlock func(), err error) {
	fl := flock.New(path + ".lock")
	ok, err := fl.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrBusy
	}
	return func() { fl.Unlock() }, nil
}

// ErrNotRegular says a state file path names something other than a
// regular file (a folder, a device such as /dev/null, a FIFO).
var ErrNotRegular = errors.New("not a regular file")

// ResolveState follows the symlinks of a state file path to the file they
// name, so that the lock (beside the real file) is the same whatever name
// a run was given, and a save replaces the real file, not the link. The
// file need not exist yet (a link may point at a file the first run
// creates); when it exists it must be a regular file: a save would
// otherwise replace a device node or a FIFO by a file.
func ResolveState(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", ErrNotRegular
			}
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", errors.New("too many levels of symbolic links")
}

// MoveFile renames from over to, in the same folder, and makes the rename
// durable (fsync of the folder): a pending state made current.
func MoveFile(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	dir := filepath.Dir(to)
	return syncDir(dir)
}
