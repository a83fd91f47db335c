package archive

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/cursor"
	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/klauspost/compress/zstd"
)

// ErrBusy is returned by Open when another sync holds the host's lock.
var ErrBusy = cursor.ErrBusy

// Sync is one sync of a host's folder: opened under the host's lock,
// events written to it as JSON Lines (Write) go to the segment of their
// run's day, and Commit makes them part of the archive with the state
// that says what was read, in one rename. Until then nothing a reader
// or the next sync sees has changed.
type Sync struct {
	Dir    string
	old    Manifest
	fresh  bool // no manifest yet: the host's first sync
	unlock func()

	// the events written, routed line by line: a run's events go to the
	// day of its first, so that a run is never split between segments
	line   []byte
	runDay map[string]string
	open   []*piece            // the pieces being written, the latest used last
	pieces map[string][]*piece // by day, in the order written
	spare  []*zstd.Encoder     // of the pieces closed, for the next
	events int64
	err    error
}

// piece is a temporary file of a day's new events, zstd-compressed;
// Commit joins a day's pieces (and its segment before) into one
// segment: zstd frames one after another are one stream.
type piece struct {
	day    string
	path   string
	f      *os.File
	w      *bufio.Writer
	z      *zstd.Encoder
	events int64
}

// maxOpen is how many pieces are written at once: the events come in
// time order, so a day's pieces are done with once a later day's come,
// but for runs still going on at midnight.
const maxOpen = 2

// HostDir is the folder of the host named name under root: the name,
// with what is not a letter, a digit, '.', '-' or '_' made '_'.
func HostDir(root, name string) string {
	clean := []byte(name)
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			clean[i] = '_'
		}
	}
	if len(clean) == 0 || clean[0] == '.' {
		clean = append([]byte("host-"), clean...)
	}
	return filepath.Join(root, string(clean))
}

// Open starts a sync of the host named host under root, making the
// folders on a first sync. A sync already under way (its lock held)
// is ErrBusy. What a killed sync left is removed.
func Open(root, host string) (*Sync, error) {
	dir := HostDir(root, host)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := cursor.Lock(filepath.Join(dir, "sync"))
	if err != nil {
		return nil, err
	}
	s := &Sync{Dir: dir, unlock: unlock, runDay: map[string]string{}, pieces: map[string][]*piece{}}
	m, err := Load(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		id := make([]byte, 4)
		rand.Read(id)
		s.old = Manifest{Version: Version, Host: host, ID: hex.EncodeToString(id)}
		s.fresh = true
	case err != nil:
		unlock()
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	default:
		s.old = *m
	}
	s.removeLeftovers()
	return s, nil
}

// Manifest is the host's manifest as the sync found it.
func (s *Sync) Manifest() Manifest { return s.old }

// State is the content of the state file the manifest names (nil on a
// first sync).
func (s *Sync) State() ([]byte, error) {
	if s.old.State == "" {
		return nil, nil
	}
	return os.ReadFile(filepath.Join(s.Dir, s.old.State))
}

// Fresh reports whether the host had no manifest before the sync: its
// first, which commits one even with no events.
func (s *Sync) Fresh() bool { return s.fresh }

// Events is how many events were written to the sync.
func (s *Sync) Events() int64 { return s.events }

// Write takes events as JSON Lines; lines may be cut anywhere between
// calls.
func (s *Sync) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.line = append(s.line, p...)
			break
		}
		line := p[:i+1]
		if len(s.line) > 0 {
			s.line = append(s.line, line...)
			line = s.line
		}
		if err := s.add(line); err != nil {
			s.err = err
			return 0, err
		}
		s.line = s.line[:0]
		p = p[i+1:]
	}
	return n, nil
}

// add writes one event's line to the piece of its run's day.
func (s *Sync) add(line []byte) error {
	var run string
	var ts float64
	jsonscan.Each(line, func(k, v []byte) bool {
		switch {
		case jsonscan.KeyIs(k, "ts"):
			ts, _ = strconv.ParseFloat(string(v), 64)
		case jsonscan.KeyIs(k, "run_id"):
			if u, ok := jsonscan.Unquote(nil, v); ok {
				run = string(u)
			}
		}
		return run == ""
	})
	day, ok := s.runDay[run]
	if !ok {
		day = time.Unix(int64(ts), 0).UTC().Format(time.DateOnly)
		s.runDay[run] = day
	}
	p, err := s.piece(day)
	if err != nil {
		return err
	}
	if _, err := p.z.Write(line); err != nil {
		return err
	}
	p.events++
	s.events++
	return nil
}

// piece is the open piece of day, opened (and the least recently used
// one closed) when there is none.
func (s *Sync) piece(day string) (*piece, error) {
	for i, p := range s.open {
		if p.day == day {
			s.open = append(slices.Delete(s.open, i, i+1), p)
			return p, nil
		}
	}
	if len(s.open) == maxOpen {
		if err := s.closePiece(s.open[0]); err != nil {
			return nil, err
		}
		s.open = s.open[1:]
	}
	f, err := os.CreateTemp(s.Dir, ".piece-"+day+"-*")
	if err != nil {
		return nil, err
	}
	p := &piece{day: day, path: f.Name(), f: f, w: bufio.NewWriterSize(f, 256<<10)}
	if n := len(s.spare); n > 0 {
		// an encoder's buffers are megabytes: a first sync writes a
		// piece for every day of the history, with the same few
		p.z, s.spare = s.spare[n-1], s.spare[:n-1]
		p.z.Reset(p.w)
	} else {
		p.z, _ = zstd.NewWriter(p.w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true)) // options that cannot fail
	}
	s.open = append(s.open, p)
	s.pieces[day] = append(s.pieces[day], p)
	return p, nil
}

// closePiece ends p's file, its encoder kept for the next piece.
func (s *Sync) closePiece(p *piece) error {
	z := p.z
	err := p.close()
	if z != nil {
		s.spare = append(s.spare, z)
	}
	return err
}

func (p *piece) close() error {
	if p.f == nil {
		return nil
	}
	err := p.z.Close()
	if err == nil {
		err = p.w.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if e := p.f.Close(); err == nil {
		err = e
	}
	p.f, p.w, p.z = nil, nil, nil
	return err
}

// Commit makes the events written and state (the content of the state
// file, whatever the writer keeps there) the host's: each day written to
// gets one new segment, its old one and its pieces joined, and the new
// manifest replaces the old. Nothing is committed when no event was
// written and state is what it was. The sync is over after it, as after
// Close.
func (s *Sync) Commit(state []byte) (err error) {
	defer s.Close()
	if s.err != nil {
		return s.err
	}
	if len(s.line) > 0 {
		return errors.New("archive: an event's line not ended")
	}
	for _, p := range s.open {
		if err := s.closePiece(p); err != nil {
			return err
		}
	}
	s.open, s.spare = nil, nil
	old, err := s.State()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if s.events == 0 && bytes.Equal(old, state) && !s.fresh {
		return nil
	}
	m := s.old
	m.Version = Version
	m.Generation++
	gen := "g" + strconv.FormatInt(m.Generation, 10)
	var segs []Segment
	byDay := map[string]Segment{}
	for _, seg := range m.Segments {
		byDay[seg.Day] = seg
	}
	days := make([]string, 0, len(s.pieces))
	for day := range s.pieces {
		days = append(days, day)
	}
	slices.Sort(days)
	for _, day := range days {
		seg, err := s.join(day, byDay[day], gen)
		if err != nil {
			return err
		}
		byDay[day] = seg
	}
	for _, seg := range byDay {
		segs = append(segs, seg)
	}
	slices.SortFunc(segs, func(a, b Segment) int { return strings.Compare(a.Day, b.Day) })
	m.Segments = segs
	m.State = "state." + gen + ".json"
	if err := cursor.WriteFileAtomic(filepath.Join(s.Dir, m.State), state); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(m, "", "\t") // plain data: cannot fail
	if err := cursor.WriteFileAtomic(filepath.Join(s.Dir, ManifestName), append(data, '\n')); err != nil {
		return err
	}
	s.old = m
	s.removeLeftovers()
	return nil
}

// join writes day's new segment: the old one's bytes (if any), then its
// pieces', under a name of this generation.
func (s *Sync) join(day string, old Segment, gen string) (Segment, error) {
	seg := Segment{Name: day + "." + gen + ".jsonl.zst", Day: day, Events: old.Events}
	f, err := os.CreateTemp(s.Dir, ".segment-*")
	if err != nil {
		return seg, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name()) // gone once renamed
	}()
	srcs := []string{}
	if old.Name != "" {
		srcs = append(srcs, filepath.Join(s.Dir, old.Name))
	}
	for _, p := range s.pieces[day] {
		srcs = append(srcs, p.path)
		seg.Events += p.events
	}
	for _, src := range srcs {
		r, err := os.Open(src)
		if err != nil {
			return seg, err
		}
		n, err := io.Copy(f, r)
		r.Close()
		if err != nil {
			return seg, err
		}
		seg.Bytes += n
	}
	if err := f.Sync(); err != nil {
		return seg, err
	}
	if err := os.Rename(f.Name(), filepath.Join(s.Dir, seg.Name)); err != nil {
		return seg, err
	}
	return seg, nil
}

// Close ends the sync: what was not committed is removed, the lock let go.
func (s *Sync) Close() {
	if s.unlock == nil {
		return
	}
	for _, p := range s.open {
		p.close()
	}
	s.open = nil
	for _, ps := range s.pieces {
		for _, p := range ps {
			os.Remove(p.path)
		}
	}
	s.pieces = nil
	s.unlock()
	s.unlock = nil
}

// removeLeftovers removes the files of the host's folder that its
// manifest does not name and a sync makes: a killed sync's pieces and
// files of a generation never committed, the segments and states a
// commit replaced.
func (s *Sync) removeLeftovers() {
	keep := map[string]bool{s.old.State: true}
	for _, seg := range s.old.Segments {
		keep[seg.Name] = true
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		n := e.Name()
		ours := strings.HasPrefix(n, ".piece-") || strings.HasPrefix(n, ".segment-") ||
			strings.HasSuffix(n, ".jsonl.zst") || strings.HasPrefix(n, "state.g")
		if ours && !keep[n] && e.Type().IsRegular() {
			os.Remove(filepath.Join(s.Dir, n))
		}
	}
	cursor.RemoveStaleTemps(filepath.Join(s.Dir, ManifestName))
}
