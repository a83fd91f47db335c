package evimport

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"

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
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			var buf []byte
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				buf = o.scan(files[i], buf, exact)
			}
		})
	}
	jsonl.Waiting(wg.Wait)
}

// scan reads f for its source and keys, as little of it as these need:
// the first records for its format (detect), then a Claude Code file's
// every line for its sessionIds, lightly (claudeKeys), another's lines
// up to what ties it (groupKeys). buf is the
// scanning goroutine's, handed back to read the next file into.
func (o *options) scan(f *logFile, buf []byte, exact bool) []byte {
	var data []byte
	if !f.once {
		if fi, err := os.Stat(f.name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			f.once = true
			f.kept, f.keptErr = jsonl.ReadFile(f.name, nil)
		}
	}
	if f.once {
		data = f.kept // scanned again (exact): what the first scan read
	} else {
		data, _ = jsonl.ReadFile(f.name, buf) // an error is reported with the group
		buf = data
	}
	f.size = len(data)
	ignore := func(jsonl.Record, error) error { return nil }
	// the first record that says its source is enough, as detect reads them
	found, stopped := o.From != "auto", false
	read(wholeFile(f.label(), data, ignore), ignore, f, true, true, func() bool {
		if !found {
			found = sourceOfRecord(f.records[len(f.records)-1].data) != ""
		}
		stopped = found || len(f.records) >= detectLines
		return stopped
	})
	if (len(f.records) > 0 || f.document != nil) && o.sourceOf(f) {
		if f.source == "claude" {
			f.claudeKeys(data, exact)
		} else {
			f.groupKeys()
		}
		if stopped && (f.source == "codex" && f.keys == nil || f.source == "gemini" && f.seen == nil) {
			// what ties it to other files (a Codex rollout's session_meta,
			// a Gemini CLI chat's sessionId) is not in the lines read
			// for its format: it is looked for in all of them
			f.records, f.keys = nil, nil
			read(wholeFile(f.label(), data, ignore), ignore, f, true, true, nil)
			f.groupKeys()
		}
	}
	f.records, f.document = nil, nil
	return buf
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
	f.ids = map[string]bool{}
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
