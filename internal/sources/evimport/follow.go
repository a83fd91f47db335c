package evimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// followEvery is how often --follow looks at the files again; followDone,
// when set (by tests), ends the loop after a look.
var (
	followEvery = 250 * time.Millisecond
	followDone  func() bool
)

// tail is a file --follow reads as it grows.
type tail struct {
	f      *logFile
	r      jsonl.Follower // where it was read to: its lines ended since are read next
	failed bool           // in no known format: said once
	grew   bool           // since the last conversion
	lines  bool           // a .json file found to hold lines: read as the others
	key    string         // the session it holds (sessionKey)
	// read: for a session of a database, when it had last changed (its
	// rows' time_updated) as last read; -1 before the first reading
	read int64
	// past is what was read of the files that were under the name before
	// (rotated away, truncated, gone): their lines are still the
	// session's, converted before the file's own, until a file found
	// holds them again (settle).
	past []*tail
	// prev is the file whose lines this one's go on from after a
	// rotation: the last of past, or the file found holding its lines
	// (settle). A file that does not name its session (Codex, pi and
	// Copilot CLI name it in their first lines only) is converted as
	// prev's continuation: one file of prev's lines then its own.
	prev *tail
	// copying: a file found holding the first lines of a past file
	// that has more (a copy being made): not converted until it holds
	// them all, as the past's lines are.
	copying bool
}

// sent is what --follow wrote of a session: the hash of each event, in
// order, and how many times each hash was written.
type sent struct {
	hashes []uint64
	count  map[uint64]int
}

// follower is --follow: the files it reads as they grow, in the order
// they are converted, and what was written of each session; a round
// (round) is the pass run again over the sessions whose files grew.
type follower struct {
	o       *options
	in      *jsonl.Input
	out     *jsonl.Writer
	win     window.Window
	newConv func() *converter

	tails    map[string]*tail
	order    []string
	written  map[string]*sent // by source and session id
	reported map[string]bool  // records of the wrong shape, said once
	skipped  map[string]bool  // files not regular, said once
	missing  func(p string, err error)
}

func newFollower(o *options, in *jsonl.Input, out *jsonl.Writer, win window.Window, newConv func() *converter) *follower {
	return &follower{o: o, in: in, out: out, win: win, newConv: newConv,
		tails: map[string]*tail{}, written: map[string]*sent{}, reported: map[string]bool{}, skipped: map[string]bool{},
		missing: func(p string, err error) { in.Errorf("%v", jsonl.FileError(p, err)) }}
}

// follow is --follow: it reads the files (and the folders' new session
// files) as they grow, and writes each session's new events once they
// are settled, a round every followEvery, until it is stopped.
func (o *options) follow(in *jsonl.Input, out *jsonl.Writer, win window.Window, newConv func() *converter) error {
	fl := newFollower(o, in, out, win, newConv)
	for {
		if err := fl.round(); err != nil {
			return err
		}
		if followDone != nil && followDone() {
			return nil
		}
		jsonl.Waiting(func() { time.Sleep(followEvery) })
	}
}

// round looks at the files once: the folders' new session files, what
// each file gained (or that it was truncated or rotated); the sessions
// that grew are converted again, as a pass converts them, and their
// settled events not written yet are written.
func (fl *follower) round() error {
	// no word on an empty folder: it may get its files later
	files := expand(fl.o.paths(), fl.o.From, fl.win.Since, fl.missing, nil, func(p, what string) {
		if !fl.skipped[p] {
			fl.skipped[p] = true
			fl.in.Errorf("%s: not a regular file (%s), skipped", term.Escape(p), what)
		}
	})
	fl.missing = func(string, error) {} // said once: a path may come and go
	for _, f := range files {
		if t := fl.tails[f.key()]; t == nil {
			fl.tails[f.key()] = &tail{f: f, r: jsonl.Follower{Name: f.name}, read: -1}
			fl.order = append(fl.order, f.key())
		} else if f.db != nil {
			t.f.sess = f.sess // as the database lists it now
		}
	}
	changed := false
	for _, name := range fl.order {
		t := fl.tails[name]
		grew, err := t.poll(fl.in)
		if err != nil {
			return err
		}
		t.grew = t.grew || grew
		changed = changed || grew
	}
	fl.order = settle(fl.tails, fl.order)
	if !changed {
		return nil
	}
	conv := fl.newConv()
	conv.keep = true
	conv.bad = func(r record, reason error) {
		if key := r.file + ":" + strconv.Itoa(r.line); !fl.reported[key] {
			fl.reported[key] = true
			fl.in.Bad(jsonl.Record{File: r.file, Line: r.line}, reason)
		}
	}
	writeSessions(fl.out, fl.fresh(conv), fl.win)
	err := fl.out.Flush()
	fl.sayNotes(conv)
	return err
}

// sayNotes says the notes of a pass's end that stay true as a session
// goes on (models without a price, records of unknown types and their
// members) as they come up, each once: --follow ends only by a signal,
// after which nothing is said, and a round converts the sessions that
// grew again whole, so counts would be said again and again. A call
// without usage yet, or a Copilot CLI session without its shutdown, is
// what a session being written looks like: not said.
func (fl *follower) sayNotes(conv *converter) {
	conv.notes(func(key, line string) {
		if strings.HasPrefix(key, "usage ") || strings.HasPrefix(key, "copilot ") {
			return
		}
		if key = "note " + key; !fl.reported[key] {
			fl.reported[key] = true
			io.WriteString(fl.in.Stderr, line)
		}
	})
}

// fresh converts again the files of the sessions that grew and returns,
// by session, the settled events not written yet, numbered after those
// that were.
func (fl *follower) fresh(conv *converter) []*session {
	grown := map[string]bool{}
	var all, ready []*tail
	for _, name := range fl.order {
		all = append(append(all, fl.tails[name].past...), fl.tails[name])
	}
	for _, t := range all {
		if t.failed || t.copying || len(t.f.records) == 0 && t.f.document == nil {
			continue
		}
		if t.f.source == "" && !fl.o.sourceOf(t.f) {
			why := t.f.wrong // --from names another agent
			if p := t.prev; why == "" && p != nil && p.f.source != "" {
				// a continuation's first lines may be of no shape
				// that says whose they are: its session's first
				// file's say it
				t.f.source = p.f.source
			} else {
				if why == "" {
					why = noKnownFormat(t.f, nil)
				}
				fl.in.Errorf("%s: %s", term.Escape(t.f.name), why)
				t.failed = true
				continue
			}
		}
		if t.key == "" {
			key, named := sessionKey(t.f)
			if p := t.prev; !named && p != nil && p.key != "" && p.f.source == t.f.source {
				key = p.key // the session of the file it continues
			}
			t.key = key
		}
		grown[t.key] = grown[t.key] || t.grew
		t.grew = false
		ready = append(ready, t)
	}
	// A continuation (a file that names no session, after a rotation)
	// is converted as one file with the one it continues, its lines
	// after that file's, as the agent wrote them: alone, it was a
	// session of its own named after the file, its runs from 0, and
	// the file it continues ended as if the session had.
	type group struct {
		t *tail
		f *logFile
	}
	var groups []*group
	of := map[*tail]*group{}
	for _, t := range ready {
		if g := of[t.prev]; g != nil && t.prev.key == t.key && !named(t.f) {
			g.f = joinFiles(g.f, t.f)
			of[t] = g
			continue
		}
		g := &group{t: t, f: t.f}
		groups = append(groups, g)
		of[t] = g
	}
	var files []*logFile
	for _, g := range groups {
		if grown[g.t.key] {
			files = append(files, g.f)
		}
	}
	var out []*session
	for _, s := range conv.sessions(files) {
		key := s.source + "\x00" + s.id
		w := fl.written[key]
		if w == nil {
			w = &sent{count: map[uint64]int{}}
			fl.written[key] = w
		}
		settled := s.events
		for i, e := range settled {
			if e.unsettled {
				settled = settled[:i]
				break
			}
		}
		fresh := w.add(settled)
		if len(fresh) > 0 {
			out = append(out, &session{source: s.source, id: s.id, project: s.project, host: s.host, events: fresh, seqBase: int64(len(w.hashes) - len(fresh))})
		}
	}
	return out
}

// add notes the events of the session's settled list that were not
// written yet and returns them: those after the part written, when that
// part is still the list's beginning (the log grew at its end), else every
// event not written before (a subagent's events were spliced in).
func (w *sent) add(events []event) []event {
	hashes := make([]uint64, len(events))
	for i := range events {
		hashes[i] = events[i].hash()
	}
	var fresh []event
	if len(hashes) >= len(w.hashes) && slices.Equal(hashes[:len(w.hashes)], w.hashes) {
		fresh = events[len(w.hashes):]
		hashes = hashes[len(w.hashes):]
	} else {
		seen := map[uint64]int{}
		var keep []uint64
		for i, h := range hashes {
			if seen[h] < w.count[h] {
				seen[h]++
				continue
			}
			fresh = append(fresh, events[i])
			keep = append(keep, h)
		}
		hashes = keep
	}
	for _, h := range hashes {
		w.count[h]++
	}
	w.hashes = append(w.hashes, hashes...)
	return fresh
}

// hash identifies an event by everything --follow writes of it but seq.
func (e *event) hash() uint64 {
	h := fnv.New64a()
	h.Write([]byte(e.run))
	h.Write([]byte{0})
	h.Write([]byte(e.agent))
	h.Write([]byte{0})
	h.Write([]byte(e.kind))
	h.Write([]byte{0, byte(e.ms), byte(e.ms >> 8), byte(e.ms >> 16), byte(e.ms >> 24), byte(e.ms >> 32), byte(e.ms >> 40)})
	h.Write(e.payload)
	return h.Sum64()
}

// firstLineWhole reports whether data's first record, framed as a pass
// reads lines (a BOM, blank lines and '\r' not counted), is ended and is
// a JSON value of its own: data is lines then, where a document being
// written, pretty ("{" alone) or compact (one line, not ended), is not.
func firstLineWhole(data []byte) bool {
	whole := false
	jsonl.Lines(jsonl.WholeLines(data), func(_ int, rec []byte, _ bool) bool {
		whole = jsonscan.Check(rec) == nil
		return false
	})
	return whole
}

// documentFile reports whether data, the whole of a .json file and one
// JSON value, is read as a document: unless it is one line of a log's
// (the first line of a session written under such a name) rather than a
// Gemini CLI document written on one line, which would be taken for a
// document in no known format and never read again.
func documentFile(data []byte) bool {
	return !firstLineWhole(data) || documentOf(bytes.TrimSpace(data), true) != ""
}

// sessionKey names the session a file holds, so that --follow converts
// again only the files of the sessions that grew: as its source names it
// (source.session: a Claude Code file by its sessionId, a Codex agent's
// by its parent's thread, a Gemini subagent's chat by its parent's
// session), else (not named) by the file itself.
func sessionKey(f *logFile) (key string, named bool) {
	if src := sourceNamed(f.source); src != nil {
		if key, ok := src.sessionOf(f); ok {
			return f.source + "\x00" + key, true
		}
	}
	return f.source + "\x00" + f.name, false
}

// named reports whether f's lines name the session they are of.
func named(f *logFile) bool {
	_, ok := sessionKey(f)
	return ok
}

// joinFiles is the file of a's lines then b's, named as a: a session's
// lines before a rotation and after. Each line keeps its own file and
// line number, for what is said of it.
func joinFiles(a, b *logFile) *logFile {
	return &logFile{name: a.name, source: a.source, companion: a.companion, index: a.index, regular: a.regular,
		records: append(slices.Clip(a.records), b.records...)}
}

// poll reads what the file gained since the last look: the lines ended
// since, as tail -F does (a file truncated, rewritten or replaced under
// its name is read again from its start; a compressed one whole, once),
// framed and reported by jsonl's Follower as a pass frames them. A
// whole-document file (Gemini's older format) is read again whole. It
// reports whether anything changed.
func (t *tail) poll(in *jsonl.Input) (bool, error) {
	if t.f.db != nil {
		return t.pollSession(), nil
	}
	switch t.r.Look() {
	case jsonl.Unchanged:
		return false, nil
	case jsonl.Gone:
		// gone for now (a rotation): it may come back, as another file
		t.retire()
		return false, nil
	case jsonl.Restarted:
		t.retire()
	}
	if strings.HasSuffix(t.f.name, ".json") && !t.lines {
		data, err := os.ReadFile(t.f.name)
		doc := bytes.TrimPrefix(data, []byte("\ufeff")) // as a pass reads it
		switch {
		case err != nil:
			return false, nil
		case jsonscan.Check(doc) == nil && documentFile(doc):
			t.f.document = doc
			return true, nil
		case !firstLineWhole(data) && !json.Valid(doc):
			return false, nil // being written: wait for the whole of it
		}
		// lines, not a document (a document on one line may have
		// records after it), or a whole value that is no object, which
		// a pass reports as a bad line: read from the start as lines
		// from now on (the Follower has read nothing of it yet)
		t.lines = true
		t.f.records, t.f.document = nil, nil
	}
	grew := false
	err := t.r.Read(in, func(rec jsonl.Record) error {
		if err := jsonscan.Check(rec.Data); err != nil {
			return in.Bad(rec, err)
		}
		t.f.records = append(t.f.records, record{data: bytes.Clone(rec.Data), file: rec.File, line: rec.Line})
		grew = true
		return nil
	})
	if errors.Is(err, jsonl.ErrStrict) {
		return false, err
	}
	// a file that cannot be read now (gone since the look) is looked
	// at again next time
	return grew, nil
}

// pollSession reads a session of a database again, whole, when its
// rows say it changed since it was last read: a database is no file
// that grows by lines. What is wrong in its rows is said by the
// conversion, once.
func (t *tail) pollSession() bool {
	if t.read == t.f.sess.updated {
		return false
	}
	data, err := t.f.db.database.export(t.f.name, t.f.sess, nil)
	if err != nil {
		return false // looked at again next round
	}
	t.read = t.f.sess.updated
	ignore := func(jsonl.Record, error) error { return nil }
	t.f.records = nil
	read(wholeFile(t.f.label(), data, ignore), ignore, t.f, true, false, nil)
	return true
}

// retire starts the tail again from a new file under its name (the
// Follower starts from its start already): the lines read of the old one
// are kept in past, as the session's. A document (Gemini CLI's older
// format) is not: it is written again whole.
func (t *tail) retire() {
	if len(t.f.records) > 0 {
		p := &tail{f: t.f, key: t.key, failed: t.failed, prev: t.prev}
		t.past = append(t.past, p)
		t.prev = p // what the new file's lines go on from
	}
	t.f = &logFile{name: t.f.name, companion: t.f.companion, regular: t.f.regular}
	t.lines, t.key, t.failed = false, "", false
}

// settle finds where the lines of the tails' past files are now, and
// returns the order the files are converted in. A file that holds a past
// file's lines (renamed to another session name in the folder, or copied
// there before a truncation) is that file: it takes the past file's place,
// before the file now under the old name, as a one-shot walk finds the
// older name first. A past file is let go once a file holds all its lines
// (the file under its own name when it was written again the same, or
// is being written again: it starts with lines the past held); the past
// lines nothing holds (the file moved out of the folder, or its copy out
// of the walk) stay the session's beginning.
func settle(tails map[string]*tail, order []string) []string {
	for _, name := range order {
		tails[name].copying = false
	}
	for _, name := range slices.Clone(order) {
		x := tails[name]
		kept := x.past[:0]
		for _, p := range x.past {
			if sameStart(x.f.records, p.f.records) {
				x.grew = true
				if x.prev == p {
					x.prev = p.prev // written again: it is p
				}
				continue
			}
			i := slices.IndexFunc(order, func(n string) bool {
				return n != name && sameStart(tails[n].f.records, p.f.records)
			})
			if i < 0 {
				kept = append(kept, p)
				continue
			}
			found := order[i]
			n := tails[found]
			n.grew = true
			if j := slices.Index(order, name); i > j {
				order = slices.Insert(slices.Delete(order, i, i+1), j, found)
			}
			if len(n.f.records) < len(p.f.records) {
				kept = append(kept, p) // being copied: the past has more
				n.copying = true
				continue
			}
			// n is p: what went on from p goes on from n
			if x.prev == p {
				x.prev = n
			}
			if n.prev == nil {
				n.prev = p.prev
			}
		}
		x.past = kept
	}
	return order
}

// sameStart reports whether a and b are lines of one file: the one, not
// empty, begins with the other.
func sameStart(a, b []record) bool {
	n := min(len(a), len(b))
	if n == 0 {
		return false
	}
	for i := range n {
		if !bytes.Equal(a[i].data, b[i].data) {
			return false
		}
	}
	return true
}
