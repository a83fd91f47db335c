package evimport

import (
	"os"
	"runtime"

	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// scanAll finds each file's source and what ties it to other files
// (groupKeys), on every core, before any is converted: a group's files
// are then read and converted together by one worker. Nothing is
// reported here: a file's bad lines, and that it cannot be read or is in
// no known format, are reported when its group is converted. exact: see
// claudeKeys.
func (o *options) scanAll(files []*logFile, exact bool) {
	pool := jsonl.NewOrdered(min(runtime.GOMAXPROCS(0), len(files)), len(files), 0,
		func() *jsonl.Head { return new(jsonl.Head) }, // its memory, reused from file to file
		func(h *jsonl.Head, f **logFile) { o.scan(*f, h, exact) },
		func(**logFile) error { return nil })
	defer pool.Close()
	pool.Idle = true // nothing is written meanwhile: a signal may stop the tool
	for _, f := range files {
		*pool.Next() = f
		pool.Send(0)
	}
	pool.Drain()
}

// scanHead is how much of a file the scan reads at most before it reads
// the whole: the first records of most files, where a Codex rollout's
// session_meta and a Gemini CLI chat's sessionId are; a variable for
// tests. A quarter of it is read first, which settles most files.
var scanHead = 64 << 10

// scan reads f for its source and keys, as little of it as these need:
// the first records for its format (detect), then a Claude Code file's
// lines for their sessionIds, lightly (claudeKeys: those of its head and
// tail; exact, of every line), another's lines up to what ties it
// (groupKeys). Its head is read first, a quarter of scanHead then all of
// it, and the whole file only when the head is not enough. h is the
// scanning goroutine's.
func (o *options) scan(f *logFile, h *jsonl.Head, exact bool) {
	if f.db != nil {
		return // its source and session are known from the database
	}
	if !f.once && !f.regular {
		if fi, err := os.Stat(f.name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			f.once = true
			f.kept, f.keptErr = jsonl.ReadFile(f.name, nil)
		}
	}
	if f.once {
		o.scanData(f, f.kept, exact, nil, true) // scanned again (exact): what the first scan read
		f.size = len(f.kept)
		return
	}
	defer h.Close()
	ok := h.Open(f.name)
	for _, n := range [...]int{scanHead / 4, scanHead} {
		if ok = ok && h.Read(n); !ok || h.Whole {
			break
		}
		tail := func() []byte { return h.Tail(n) }
		if o.scanData(f, h.Lines(), exact, tail, n == scanHead) {
			f.size = int(h.Size)
			return
		}
	}
	if !ok || !h.ReadRest() {
		h.Data, _ = jsonl.ReadFile(f.name, h.Data) // an error is reported with the group
	}
	o.scanData(f, h.Data, exact, nil, true)
	f.size = len(h.Data)
}

// scanData scans data, f's content, or only its head (whole lines) when
// tail is set, which reads the whole lines of the end of the file: what
// it finds there is then settled only if it says all the scan needs to
// know, which settled reports; if not, f is as before. last: the head is
// all the scan reads before it reads the whole file.
func (o *options) scanData(f *logFile, data []byte, exact bool, tail func() []byte, last bool) (settled bool) {
	head := tail != nil
	defer func() {
		if !settled {
			f.source, f.keys, f.seen, f.ids, f.parent, f.wrong = "", nil, nil, nil, false, ""
		}
		f.records, f.document = nil, nil
	}()
	ignore := func(jsonl.Record, error) error { return nil }
	// the first record that says its source is enough, as detect reads
	// them: what it says is what detect would find; under --from, the
	// first that says it is of that source (looks)
	found, stopped := false, false
	var said string
	read(wholeFile(f.label(), data, ignore), ignore, f, true, true, func() bool {
		if !found {
			s := sourceOfRecord(f.records[len(f.records)-1].data)
			if o.From == "auto" {
				said = s
			}
			found = s != "" && (o.From == "auto" || s == o.From)
		}
		stopped = found || len(f.records) >= detectLines
		return stopped
	})
	if head && !stopped {
		return false
	}
	known := said != ""
	if known {
		f.source = said
	} else if len(f.records) > 0 || f.document != nil {
		known = o.sourceOf(f)
	}
	if known {
		src := sourceNamed(f.source)
		lineKeys := src.lineKeys
		switch {
		case lineKeys && head && !exact:
			// The sessionIds of the head and of the tail: a file of
			// one session has its id in both, a resumed session's copy
			// of another's lines is at the start. A sessionId only in
			// between is found by the conversion (converter.missed),
			// and all is scanned again, exact. Only scanHead's head and
			// tail, not a shorter one: a session named there by a line
			// the conversion does not check against the scan (a bad
			// line, one of an unknown type) joins the file's group,
			// which decides the order in which bad lines are said.
			if !last {
				return false
			}
			f.claudeKeys(data, false)
			f.claudeKeys(tail(), false)
		case lineKeys && head:
			return false
		case lineKeys:
			f.claudeKeys(data, exact)
		default:
			f.groupKeys()
		}
		if stopped && src.keyed != nil && !src.keyed(f) {
			if head {
				return false
			}
			// what ties it to other files (a Codex rollout's session_meta,
			// a Gemini CLI chat's sessionId: source.keyed) is not in the
			// lines read for its format: it is looked for in all of them
			f.records, f.keys = nil, nil
			read(wholeFile(f.label(), data, ignore), ignore, f, true, true, nil)
			f.groupKeys()
		}
	}
	return true
}

// claudeKeys notes the sessionId of every line of data, a Claude Code
// file, without checking the lines (the conversion does). A line is
// walked up to its first sessionId, which Claude Code writes near its
// start; exact, it is walked to its end, for a line with two: the last
// is the one decoded. The conversion tells when a line's sessionId is
// not among those noted (converter.missed), and the files are then
// scanned again, exact. A bad line's sessionId at worst joins two
// groups, which changes nothing but which worker converts them.
func (f *logFile) claudeKeys(data []byte, exact bool) {
	if f.ids == nil {
		f.ids = map[string]bool{}
	}
	jsonl.Lines(data, func(_ int, rec []byte, _ bool) bool {
		jsonscan.Each(rec, func(k, v []byte) bool {
			if !jsonscan.KeyIs(k, "sessionId") {
				return true
			}
			f.noteID(v)
			return exact
		})
		return true
	})
}
