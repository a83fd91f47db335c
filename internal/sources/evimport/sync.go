package evimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// An incremental import (--state FILE, --archive) is a pass that skips
// what an earlier run with the same state wrote. The state says, per
// file read, what it was (device, inode, size, modification time) and
// what the scan found in it (its source and the keys that group it with
// others), so that a file that did not change is not opened: its group
// is not converted at all unless another of its files changed. A group
// that changed is converted whole, as a pass converts it, and of each
// of its sessions the runs already written are left out: the state
// keeps, per session, a hash of each run written.
//
// A run is written once it is settled: a later run of its session has
// begun, or the session's files have not changed for --settle (the
// agent is done with it). Before that, more lines may still change it
// (the response being streamed, the run's end), and a run once written
// is never written again, so a run is written whole or not at all: a
// report over what was written counts it once, with its final tokens.
// A run that changes after it was written (a log rewritten with other
// content) is kept as first written, and said.

// syncState is the content of a --state file, or of an archive's state:
// a header line (JSON: the version, and whose state it is, so that an
// evcursor state given by mistake is refused, not read as an empty
// one), a line per file (fileMark, its members separated by tabs, the
// strings quoted), then a line "sessions" and a line per session (its
// key, files and runs, quoted). A run that finds no file changed reads
// the header and the files only, and one that converts a few sessions
// decodes only theirs: on 8,000 files, one JSON document for it all took
// most of such a run's time.
type syncState struct {
	Files map[string]*fileMark
	// Settled is the moment before which every file's runs were settled
	// when the state was saved (the sync's time less --settle, Unix
	// nanoseconds; 0 when not known): a file changed after it may have
	// held a run not written then, which the next sync writes once it
	// is settled, though the file has not changed since.
	Settled int64
	raw     []byte // the sessions' lines, indexed when a file changed (loadSessions)
	// lines are the sessions' lines by key, the rest of each line still
	// encoded: a run decodes those it converts (session), and writes the
	// others back as they were
	lines   map[string]string
	updated map[string]*sessionMark
}

// syncHeader is a state's first line.
type syncHeader struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`
	Settled int64  `json:"settled,omitempty"`
}

// syncStateVersion is the format written; another is refused.
const syncStateVersion = 4

// fileMark is a file as the last run read it.
type fileMark struct {
	Dev, Ino    uint64
	Size, MTime int64
	Source      string
	Keys, IDs   []string
	Parent      bool
}

// sessionMark is what was written of a session: the files it was read
// from last, and the runs written, each as the part of its id after the
// session's and the hash of its events.
type sessionMark struct {
	Files []string `json:"files"`
	Runs  []string `json:"runs"`
}

func newSyncState() *syncState {
	return &syncState{Files: map[string]*fileMark{}, lines: map[string]string{}, updated: map[string]*sessionMark{}}
}

// parseSyncState reads a state's content; an empty one (touch FILE) is
// the state of a first run.
func parseSyncState(data []byte) (*syncState, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newSyncState(), nil
	}
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	var h syncHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Tool != name {
		return nil, errors.New("not an evimport state (an evcursor state? give evimport a file of its own)")
	}
	if h.Version != syncStateVersion {
		return nil, fmt.Errorf("state format version %d is not this evimport's (%d): start a new state file", h.Version, syncStateVersion)
	}
	st := &syncState{Files: map[string]*fileMark{}, Settled: h.Settled}
	for n := 2; len(rest) > 0; n++ {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if string(line) == "sessions" {
			st.raw = rest
			return st, nil
		}
		name, m, ok := parseFileMark(string(line))
		if !ok {
			return nil, fmt.Errorf("not an evimport state: line %d", n)
		}
		st.Files[name] = m
	}
	return nil, errors.New("not an evimport state: it ends before its sessions (cut short?)")
}

// parseFileMark reads a file's line of a state.
func parseFileMark(line string) (name string, m *fileMark, ok bool) {
	f := strings.Split(line, "\t")
	if len(f) != 9 {
		return "", nil, false
	}
	m = &fileMark{Source: f[5], Parent: f[6] == "1"}
	var errs [6]error
	name, errs[0] = strconv.Unquote(f[0])
	m.Dev, errs[1] = strconv.ParseUint(f[1], 10, 64)
	m.Ino, errs[2] = strconv.ParseUint(f[2], 10, 64)
	m.Size, errs[3] = strconv.ParseInt(f[3], 10, 64)
	m.MTime, errs[4] = strconv.ParseInt(f[4], 10, 64)
	m.Keys, errs[5] = unquoteList(f[7])
	ids, err := unquoteList(f[8])
	m.IDs = ids
	return name, m, errors.Join(append(errs[:], err)...) == nil
}

// quoteList and unquoteList write and read a list of strings as quoted
// strings one after another.
func quoteList(l []string) string {
	var b []byte
	for _, s := range l {
		b = strconv.AppendQuote(b, s)
	}
	return string(b)
}

func unquoteList(q string) ([]string, error) {
	var l []string
	for q != "" {
		p, err := strconv.QuotedPrefix(q)
		if err != nil {
			return nil, err
		}
		s, err := strconv.Unquote(p)
		if err != nil {
			return nil, err
		}
		l, q = append(l, s), q[len(p):]
	}
	return l, nil
}

// loadSessions indexes the sessions' lines, once.
func (st *syncState) loadSessions() error {
	if st.lines != nil {
		return nil
	}
	st.lines, st.updated = map[string]string{}, map[string]*sessionMark{}
	for n, rest := 1, st.raw; len(rest) > 0; n++ {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		q, err := strconv.QuotedPrefix(string(line))
		key, err2 := strconv.Unquote(q)
		if err != nil || err2 != nil || len(line) == len(q) || line[len(q)] != '\t' {
			return fmt.Errorf("not an evimport state: session line %d", n)
		}
		st.lines[key] = string(line[len(q)+1:])
		if _, err := st.session(key); err != nil {
			return err
		}
	}
	return nil
}

// session is what was written of the session key: nil for none. It only
// reads the state, as the workers do at once.
func (st *syncState) session(key string) (*sessionMark, error) {
	if m := st.updated[key]; m != nil {
		return m, nil
	}
	line, ok := st.lines[key]
	if !ok {
		return nil, nil
	}
	files, runs, _ := strings.Cut(line, "\t")
	m := &sessionMark{}
	var err, err2 error
	m.Files, err = unquoteList(files)
	m.Runs, err2 = unquoteList(runs)
	if err != nil || err2 != nil {
		return nil, fmt.Errorf("not an evimport state: session %q", key)
	}
	return m, nil
}

func (st *syncState) marshal() []byte {
	data, _ := json.Marshal(syncHeader{Version: syncStateVersion, Tool: name, Settled: st.Settled}) // plain data: cannot fail
	data = append(data, '\n')
	for _, n := range slices.Sorted(maps.Keys(st.Files)) {
		m := st.Files[n]
		data = strconv.AppendQuote(data, n)
		for _, v := range [...]uint64{m.Dev, m.Ino, uint64(m.Size), uint64(m.MTime)} {
			data = strconv.AppendUint(append(data, '\t'), v, 10)
		}
		data = append(append(append(data, '\t'), m.Source...), '\t')
		if m.Parent {
			data = append(data, '1')
		} else {
			data = append(data, '0')
		}
		data = append(append(data, '\t'), quoteList(m.Keys)...)
		data = append(append(append(data, '\t'), quoteList(m.IDs)...), '\n')
	}
	data = append(data, "sessions\n"...)
	if st.lines == nil {
		return append(data, st.raw...) // not read: as it was
	}
	keys := make([]string, 0, len(st.lines)+len(st.updated))
	for k := range st.lines {
		keys = append(keys, k)
	}
	for k := range st.updated {
		if _, ok := st.lines[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		data = append(strconv.AppendQuote(data, k), '\t')
		if m := st.updated[k]; m != nil {
			data = append(append(append(data, quoteList(m.Files)...), '\t'), quoteList(m.Runs)...)
		} else {
			data = append(data, st.lines[k]...)
		}
		data = append(data, '\n')
	}
	return data
}

// incremental is a pass's part in an incremental import: the state it
// starts from, read only while the groups are converted, and what the
// conversion found, applied to it when all is taken (done).
type incremental struct {
	st        *syncState
	now       time.Time
	settle    time.Duration
	seen      map[string]*logFile // the files of this run's walk
	updates   map[string]*sessionMark
	rewritten []string // sessions whose written runs changed since
	dirty     int      // files that changed since the state
}

// changed reports whether the run found a file that changed.
func (inc *incremental) changed() bool { return inc.dirty > 0 }

func newIncremental(st *syncState, settle time.Duration) *incremental {
	return &incremental{st: st, now: now(), settle: settle, seen: map[string]*logFile{}, updates: map[string]*sessionMark{}}
}

// restore looks at each file of the walk: one as the state has it is
// given what the scan found in it then, and is clean; the others are
// returned, to be scanned.
func (inc *incremental) restore(files []*logFile) (dirty []*logFile, err error) {
	defer func() {
		if inc.dirty = len(dirty); inc.dirty > 0 {
			err = inc.st.loadSessions() // what was written of their sessions
		}
	}()
	stats := statAll(files)
	for i, f := range files {
		if f.name == "-" {
			dirty = append(dirty, f)
			continue
		}
		inc.seen[f.key()] = f
		st := stats[i]
		if f.db != nil {
			// a session of a database has changed when its rows say so
			st.size, st.mtime = dbSessionSize, f.sess.updated*int64(time.Millisecond)
		}
		if !st.ok {
			dirty = append(dirty, f) // what is wrong with it is said when it is read
			continue
		}
		f.dev, f.ino, f.mtime = st.dev, st.ino, st.mtime
		m := inc.st.Files[f.key()]
		if m == nil || m.Dev != f.dev || m.Ino != f.ino || m.Size != st.size || m.MTime != f.mtime || m.Source == "" || inc.settledSince(m) {
			dirty = append(dirty, f)
			continue
		}
		f.clean = true
		f.size, f.source, f.keys, f.parent = int(m.Size), m.Source, slices.Clone(m.Keys), m.Parent
		if m.IDs != nil || lineKeys(f) {
			f.ids = map[string]bool{}
			for _, id := range m.IDs {
				f.ids[id] = true
			}
		}
	}
	return dirty, nil
}

// settledSince reports whether the file m was not settled when the
// state was saved and is now: its last run, held back then, is written
// now, though the file has not changed (a session the agent was done
// with just before a sync).
func (inc *incremental) settledSince(m *fileMark) bool {
	return inc.st.Settled != 0 && m.MTime >= inc.st.Settled && inc.now.UnixNano()-m.MTime >= int64(inc.settle)
}

// fileStat is what a sync looks at of a file: its identity, size and
// modification time (Unix nanoseconds); ok, that it could be stat'ed.
type fileStat struct {
	dev, ino    uint64
	size, mtime int64
	ok          bool
}

// statAll stats the files, a folder's files on one goroutine (statDir)
// and the folders side by side: a sync that finds nothing changed is
// mostly a stat of every file.
func statAll(files []*logFile) []fileStat {
	stats := make([]fileStat, len(files))
	dirs := gather(len(files), func(i int) (string, bool) { // the files of each folder, by index
		return filepath.Dir(files[i].name), files[i].name != "-"
	})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(4, len(dirs)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(dirs); j = int(next.Add(1) - 1) {
				statDir(files, dirs[j], stats)
			}
		})
	}
	wg.Wait()
	return stats
}

// statPath stats one file by its path.
func statPath(name string) fileStat {
	fi, err := os.Stat(name)
	if err != nil {
		return fileStat{}
	}
	dev, ino := jsonl.FileID(fi)
	return fileStat{dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ok: true}
}

// written is what of a file's data is written: a log its agent wrote to
// less than --settle ago may end in a line being written, which is left
// for the next run (its run is not settled), not reported as bad.
func (inc *incremental) written(f *logFile, data []byte) []byte {
	if f.db != nil {
		return data // a database's rows are read whole, in a transaction
	}
	if len(data) == 0 || data[len(data)-1] == '\n' || inc.now.UnixNano()-f.mtime >= int64(inc.settle) {
		return data
	}
	whole := jsonl.WholeLines(data)
	if len(whole) == 0 || jsonscan.Check(data[len(whole):]) == nil {
		return data // one document (Gemini CLI's .json), or a whole last line
	}
	return whole
}

// dirtyGroups are the groups with a file that changed.
func dirtyGroups(gs [][]*logFile) [][]*logFile {
	return slices.DeleteFunc(gs, func(g []*logFile) bool {
		return !slices.ContainsFunc(g, func(f *logFile) bool { return !f.clean })
	})
}

// keep is what to write of the sessions of a group converted: of each,
// the settled runs not written before, as sessions of their own (a
// session's runs are written one after another, numbered as a pass
// numbers them). What was written is noted in up, the group's part of
// the state.
func (inc *incremental) keep(ss []*session, files []*logFile, up map[string]*sessionMark, changed *[]string) []*session {
	newest := int64(0)
	var names []string
	for _, f := range files {
		if f.name == "-" {
			newest = inc.now.UnixNano() // a pipe's content has no age
			continue
		}
		newest = max(newest, f.mtime)
		names = append(names, f.key())
	}
	idle := inc.now.UnixNano()-newest >= int64(inc.settle)
	var out []*session
	for _, s := range ss {
		key := s.source + "\x00" + s.id
		m := &sessionMark{Files: names}
		written := map[string]string{}
		if old, _ := inc.st.session(key); old != nil { // checked by loadSessions
			m.Runs = slices.Clone(old.Runs)
			m.Files = mergeNames(old.Files, names)
			for _, r := range old.Runs {
				id, hash, _ := strings.Cut(r, " ")
				written[id] = hash
			}
		}
		blocks := map[string]int{}
		var piece *session
		for start := 0; start < len(s.events); {
			end := start + 1
			for end < len(s.events) && s.events[end].run == s.events[start].run {
				end++
			}
			block := s.events[start:end]
			if !idle && slices.ContainsFunc(block, func(e event) bool { return e.unsettled }) {
				break // this run and those after it: not settled yet
			}
			id := strings.TrimPrefix(block[0].run, s.id)
			if blocks[id]++; blocks[id] > 1 {
				id += "#" + strconv.Itoa(blocks[id]) // a run's events in two places
			}
			hash := strconv.FormatUint(runHash(block), 36)
			if was, ok := written[id]; ok {
				if was != hash && !slices.Contains(*changed, key) {
					*changed = append(*changed, key)
				}
				piece = nil
			} else {
				if piece == nil {
					piece = &session{source: s.source, id: s.id, project: s.project, host: s.host, at: s.at, seqBase: s.seqBase + int64(start)}
					out = append(out, piece)
				}
				// the runs to write one after another: a part of the
				// session's events, not a copy
				first := int(piece.seqBase - s.seqBase)
				piece.events = s.events[first:end:end]
				m.Runs = append(m.Runs, id+" "+hash)
				written[id] = hash
			}
			start = end
		}
		up[key] = m
	}
	return out
}

// mergeNames is a, then those of b not in a.
func mergeNames(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// runHash identifies a run's events by what is written of them but seq:
// two CRC-32s (both computed by the processor where it can), fast over
// every payload byte of a first sync, and stable from run to run, as a
// saved hash must be.
func runHash(events []event) uint64 {
	var a, b uint32
	var head [8]byte
	for i := range events {
		e := &events[i]
		binary.LittleEndian.PutUint64(head[:], uint64(e.ms))
		for _, part := range [...][]byte{head[:], []byte(e.run), []byte(e.agent), []byte(e.kind), e.payload} {
			a = crc32.Update(a, castagnoli, part)
			b = crc32.Update(b, crc32.IEEETable, part)
			a = crc32.Update(a, castagnoli, sep[:])
		}
	}
	return uint64(a)<<32 | uint64(b)
}

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	sep        = [1]byte{0}
)

// take adds a group's part of the state, in the order the groups are
// taken.
func (inc *incremental) take(up map[string]*sessionMark, rewritten []string) {
	for k, m := range up {
		inc.updates[k] = m
	}
	inc.rewritten = append(inc.rewritten, rewritten...)
}

// done is the state after the run: the files as they were read, those
// gone forgotten, the sessions' runs written. gone is how many files of
// the state are no more; only how many sessions have none of their
// files left.
func (inc *incremental) done() (st *syncState, gone, only int, err error) {
	st = inc.st
	listed := map[string]map[string]bool{} // a database's sessions, by its file
	for name := range st.Files {
		if inc.seen[name] != nil {
			continue
		}
		if _, err := os.Lstat(fileOfKey(name)); errors.Is(err, fs.ErrNotExist) || dbSessionGone(name, listed) {
			delete(st.Files, name)
			gone++
		}
	}
	if gone == 0 && !inc.changed() {
		return st, 0, 0, nil // every file as the state has it
	}
	st.Settled = inc.now.UnixNano() - int64(inc.settle)
	if err := st.loadSessions(); err != nil {
		return nil, 0, 0, err
	}
	for k, m := range inc.updates {
		st.updated[k] = m
	}
	for name, f := range inc.seen {
		if f.source == "" || f.mtime == 0 {
			delete(st.Files, name) // not read, or in no known format: looked at again
			continue
		}
		st.Files[name] = &fileMark{Dev: f.dev, Ino: f.ino, Size: int64(f.size), MTime: f.mtime, Source: f.source, Keys: f.keys, Parent: f.parent,
			IDs: slices.Sorted(maps.Keys(f.ids))}
	}
	if err := st.loadSessions(); err != nil {
		return nil, 0, 0, err
	}
	for k := range st.lines {
		if st.updated[k] == nil {
			m, err := st.session(k)
			if err != nil {
				return nil, 0, 0, err
			}
			st.updated[k] = m // decoded once
		}
	}
	for _, m := range st.updated {
		if len(m.Files) > 0 && !slices.ContainsFunc(m.Files, func(n string) bool { return st.Files[n] != nil }) {
			only++
		}
	}
	return st, gone, only, nil
}

// dbSessionGone reports whether key names a session of a database that
// the database no longer holds (opencode deletes a session's rows); one
// not listed this run may be only older than --since. listed keeps each
// database's sessions once listed; a database that cannot be listed
// holds them all, as far as anyone knows.
func dbSessionGone(key string, listed map[string]map[string]bool) bool {
	name := fileOfKey(key)
	src := databaseOf(name)
	if src == nil || name == key {
		return false
	}
	ids, ok := listed[name]
	if !ok {
		if ss, err := src.database.sessions(name); err == nil {
			ids = map[string]bool{}
			for _, s := range ss {
				ids[s.id] = true
			}
		}
		listed[name] = ids
	}
	return ids != nil && !ids[key[len(name)+1:]]
}

// key is what the state calls f: its name, or for a session of a
// database the file's name and the session's (label).
func (f *logFile) key() string {
	if f.db != nil {
		return f.label()
	}
	return f.name
}

// fileOfKey is the file a key of the state names (logFile.key).
func fileOfKey(key string) string {
	if i := strings.LastIndexByte(key, '#'); i > 0 && databaseOf(key[:i]) != nil {
		return key[:i]
	}
	return key
}
