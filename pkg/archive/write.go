package archive

import (
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/klauspost/compress/zstd"
)

// ErrBusy is returned by Open when another sync holds the host's lock.
var ErrBusy = cursor.ErrBusy

// Sync is one sync of a host's folder: opened under the host's lock,
// events added to it as JSON Lines (Add) go to the segment of their
// run's day, and Commit makes them part of the archive with the state
// that says what was read, in one rename. Until then nothing a reader
// or the next sync sees has changed.
type Sync struct {
	Dir    string
	old    Manifest
	fresh  bool // no manifest yet: the host's first sync
	unlock func()

	// the events added, routed line by line: a run's events go to the
	// day of its first, so that a run is never split between segments
	runDay map[string]string
	days   []*dayBuf         // the days being filled, the latest used last
	pieces map[string]*piece // by day
	events int64
	z      *compressor
	err    error
}

// dayBuf is a day's lines not yet handed to the compressor.
type dayBuf struct {
	day    string
	lines  []byte
	events int64
}

// piece is a temporary file of a day's new events: zstd frames, which
// Commit joins (and the day's segment before) into one segment: zstd
// frames one after another are one stream.
type piece struct {
	path   string
	f      *os.File
	events int64
}

// chunkSize is how many bytes of a day's lines are compressed as one
// frame; maxDays, how many days are filled at once. The events come in
// time order, so a day is done with once a later day's come, but for
// runs still going on at midnight.
const (
	chunkSize = 1 << 20
	maxDays   = 3
)

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
	s := &Sync{Dir: dir, unlock: unlock, runDay: map[string]string{}, pieces: map[string]*piece{}}
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

// Fresh reports whether the host had no manifest before the sync: its
// first, which commits one even with no events.
func (s *Sync) Fresh() bool { return s.fresh }

// State is the content of the state file the manifest names (nil on a
// first sync).
func (s *Sync) State() ([]byte, error) {
	if s.old.State == "" {
		return nil, nil
	}
	return os.ReadFile(filepath.Join(s.Dir, s.old.State))
}

// Events is how many events were written to the sync.
func (s *Sync) Events() int64 { return s.events }

// Add takes one event's line, with its '\n' (jsonl.LineWriter makes a
// writer of it, for lines cut anywhere). After an error, every Add
// returns it, and so does Commit.
func (s *Sync) Add(line []byte) error {
	if s.err == nil {
		s.err = s.add(line)
	}
	return s.err
}

// add puts one event's line with its run's day.
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
	b, err := s.day(day)
	if err != nil {
		return err
	}
	b.lines = append(b.lines, line...)
	b.events++
	s.events++
	if len(b.lines) >= chunkSize {
		return s.hand(b)
	}
	return nil
}

// day is the buffer of day, the least recently used one handed to the
// compressor when there are too many.
func (s *Sync) day(day string) (*dayBuf, error) {
	for i, b := range s.days {
		if b.day == day {
			s.days = append(slices.Delete(s.days, i, i+1), b)
			return b, nil
		}
	}
	if len(s.days) == maxDays {
		if err := s.hand(s.days[0]); err != nil {
			return nil, err
		}
		s.days = s.days[1:]
	}
	b := &dayBuf{day: day}
	if s.z != nil {
		b.lines = s.z.buffer()
	}
	s.days = append(s.days, b)
	return b, nil
}

// hand gives a day's lines to the compressor, as a frame of their own
// to be added to the day's piece in the order handed.
func (s *Sync) hand(b *dayBuf) error {
	if len(b.lines) == 0 {
		return nil
	}
	if s.z == nil {
		s.z = newCompressor(s)
	}
	if err := s.z.add(b.day, b.lines, b.events); err != nil {
		return err
	}
	b.lines, b.events = s.z.buffer(), 0
	return nil
}

// piece is the piece file of day that frames are added to, opened on the
// first.
func (s *Sync) piece(day string) (*piece, error) {
	if p := s.pieces[day]; p != nil {
		return p, nil
	}
	f, err := os.CreateTemp(s.Dir, ".piece-"+day+"-*")
	if err != nil {
		return nil, err
	}
	p := &piece{path: f.Name(), f: f}
	s.pieces[day] = p
	return p, nil
}

func (p *piece) close() error {
	if p.f == nil {
		return nil
	}
	err := p.f.Sync()
	if e := p.f.Close(); err == nil {
		err = e
	}
	p.f = nil
	return err
}

// compressor compresses the days' lines on every core, each chunk a zstd
// frame, and appends the frames to their days' pieces in the order the
// chunks were handed: the events of a sync come out of one goroutine
// (the pass's time-ordered writing), and compressing them took as long
// as converting them.
type compressor struct {
	s       *Sync
	jobs    chan *chunk
	done    chan *chunk
	wg      sync.WaitGroup
	written chan error
	n       int // chunks handed
	// free are buffers of lines done with: a first sync compresses
	// hundreds of chunks, and buffers made anew for each kept the
	// collector busy under the tools' memory limit
	free chan []byte
}

type chunk struct {
	n      int
	day    string
	lines  []byte
	frame  []byte
	events int64
}

func newCompressor(s *Sync) *compressor {
	workers := max(1, runtime.GOMAXPROCS(0))
	z := &compressor{s: s, jobs: make(chan *chunk, workers), done: make(chan *chunk, workers), written: make(chan error, 1),
		free: make(chan []byte, 2*workers+maxDays)}
	for range workers {
		z.wg.Go(func() {
			enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
				zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true)) // options that cannot fail
			var frame []byte
			for c := range z.jobs {
				frame = enc.EncodeAll(c.lines, frame[:0])
				c.frame = frame
				z.release(c.lines)
				z.done <- c
				frame = nil // the writer's until written; then made again
			}
		})
	}
	go func() {
		z.wg.Wait()
		close(z.done)
	}()
	go z.write()
	return z
}

// buffer is a buffer for a day's lines, one done with if there is one.
func (z *compressor) buffer() []byte {
	select {
	case b := <-z.free:
		return b[:0]
	default:
		return make([]byte, 0, chunkSize+chunkSize/8)
	}
}

// release keeps b for buffer, if there is room.
func (z *compressor) release(b []byte) {
	select {
	case z.free <- b:
	default:
	}
}

// add hands a chunk over; it waits while every worker is busy, so that
// what is held is a chunk or two a core.
func (z *compressor) add(day string, lines []byte, events int64) error {
	select {
	case err := <-z.written:
		z.written <- err // kept for finish
		return err
	default:
	}
	z.jobs <- &chunk{n: z.n, day: day, lines: lines, events: events}
	z.n++
	return nil
}

// write appends the frames to the pieces in the order of their chunks.
func (z *compressor) write() {
	next := 0
	held := map[int]*chunk{}
	var err error
	for c := range z.done {
		held[c.n] = c
		for c := held[next]; c != nil; c = held[next] {
			delete(held, next)
			next++
			if err != nil {
				continue
			}
			var p *piece
			if p, err = z.s.piece(c.day); err == nil {
				_, err = p.f.Write(c.frame)
				p.events += c.events
			}
		}
	}
	z.written <- err
}

// finish waits for every chunk to be written.
func (z *compressor) finish() error {
	close(z.jobs)
	return <-z.written
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
	for _, b := range s.days {
		if err := s.hand(b); err != nil {
			return err
		}
	}
	s.days = nil
	if s.z != nil {
		err := s.z.finish()
		s.z = nil
		if err != nil {
			return err
		}
	}
	for _, p := range s.pieces {
		if err := p.close(); err != nil {
			return err
		}
	}
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
// piece's, under a name of this generation.
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
	var srcs []string
	if old.Name != "" {
		srcs = append(srcs, filepath.Join(s.Dir, old.Name))
	}
	p := s.pieces[day]
	srcs = append(srcs, p.path)
	seg.Events += p.events
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
	if s.z != nil {
		s.z.finish()
		s.z = nil
	}
	for _, p := range s.pieces {
		p.close()
		os.Remove(p.path)
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
