package evsum

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// evsum over an archive (a folder evimport --archive wrote) reads only the
// segments no earlier report read: a segment never changes once written
// (its host's id, its name and its size identify its content,
// archive.Host.Key), so the state of its events, for one question, is
// kept in a cache and merged as the state of a part is (the state of
// each segment keeps its call notes, as a --partial state does, so a
// call or a turn across segments pairs as in one pass). A question is
// every setting the fold depends on: the grouping, the breakdown, the
// zone, the window, and the code that folds (a new evsum starts anew);
// not the format or the order of the report, which are made from the
// state.
//
// One file per segment per question, CACHE/evsum/QUESTION/SEGMENT: a
// sync adds a segment or two (and a compaction replaces the day's), so a
// report writes a file or two and reads the others, and two reports at
// once each write their own files (temporary file, then rename) without
// losing the other's. A file holds the question and the segment's key in
// words before the state, which are checked (a hash of them names it), and
// the state's frozen form (summary.AppendFrozen), which loads without
// decoding its runs: the 60 segments of 1 GB of logs load in
// milliseconds. A file that cannot be read, is cut short or damaged is
// not trusted: the segment is read, and the file written again.

// cacheEnv names the folder of evtools' caches, for tests and for a cache
// on another disk; evsum's is its evsum folder.
const cacheEnv = "EVTOOLS_CACHE_DIR"

// cacheFormat is the version of a cache file's layout around the state.
const cacheFormat = "evsum cache 1"

// segmentCache is the cache of one question.
type segmentCache struct {
	dir      string // the question's folder
	question string
	opt      summary.Options // the segments' states' (with call notes)
}

// cacheDir is evsum's cache folder, "" when there is none.
func cacheDir() string {
	if d := os.Getenv(cacheEnv); d != "" {
		return filepath.Join(d, "evsum")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "evtools", "evsum")
}

// openCache is the cache of the report's question, nil when it is not
// used: --no-cache, no cache folder, or a question whose state cannot be
// merged from parts as one pass (--by tool, see State.Splittable), or
// changes with the clock (a window given as a duration: its cache would
// never be read again).
func openCache(opts *options, o summary.Options) *segmentCache {
	if opts.NoCache || o.SinceArg != "" || o.UntilArg != "" || !summary.New(o).Splittable() {
		return nil
	}
	root := cacheDir()
	code := codeID()
	if root == "" || code == "" {
		return nil
	}
	o.CallNotes = true
	q := fmt.Sprintf("%s\nschema %s\ncode %s\nby %+v\nbreakdown %+v\ntz %s %s\nwindow %v %d %d",
		cacheFormat, summary.FrozenSchema(), code, o.By, o.Breakdown, o.TZName, zoneID(o), o.WindowOn, unixMicro(o.Since), unixMicro(o.Until))
	return &segmentCache{dir: filepath.Join(root, hashName(q)), question: q, opt: o}
}

func unixMicro(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// codeID names the code that folds: the evsum executable, by its size and
// time. A state folded by other code (an upgrade, a build) may count
// otherwise, so it is not read.
func codeID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

// zoneID names the rules of the local zone (--tz Local), which the
// machine's settings give: the TZ variable and /etc/localtime. Any other
// zone is its name.
func zoneID(o summary.Options) string {
	if o.Loc != time.Local {
		return ""
	}
	data, _ := os.ReadFile("/etc/localtime")
	return fmt.Sprintf("TZ=%q %08x", os.Getenv("TZ"), crc32.ChecksumIEEE(data))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func hashName(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

// header is what a segment's file starts with: the question and the
// segment, in words.
func (c *segmentCache) header(key string) []byte {
	return fmt.Appendf(nil, "%s\nsegment %s\n\n", c.question, key)
}

// path is the file of segment e: named by its host, day and place among
// the host's segments of that day, not by its key, so that the segment a
// sync writes in place of another (the day's, made again as it grows;
// a compaction's) takes the file of the one it replaces, and the cache
// stays as large as the archive.
func (c *segmentCache) path(e *jsonl.Entry) string {
	n := 0
	for _, s := range e.Host.Manifest.Segments {
		if s.Name == e.Segment.Name {
			break
		}
		if s.Day == e.Segment.Day {
			n++
		}
	}
	return filepath.Join(c.dir, hashName(fmt.Sprintf("%s %s %d", e.Host.Manifest.ID, e.Segment.Day, n)))
}

// load is the state of the segment e, nil when the cache has none it can
// trust.
func (c *segmentCache) load(e *jsonl.Entry) *summary.State {
	key := e.Key()
	data, err := os.ReadFile(c.path(e))
	if err != nil {
		return nil
	}
	h := c.header(key)
	if !bytes.HasPrefix(data, h) {
		return nil
	}
	st, err := summary.LoadFrozen(c.opt, data[len(h):])
	if err != nil {
		return nil
	}
	return st
}

// save keeps st, the state of the segment e, for the next report. A
// cache that cannot be written is no error: the report is the same, and
// the next one reads the segment again.
func (c *segmentCache) save(e *jsonl.Entry, st *summary.State) {
	c.write(c.path(e), st.AppendFrozen(c.header(e.Key())))
}

// write replaces the file at path with data, or leaves it: a temporary
// file renamed, so that a report never reads half a file.
func (c *segmentCache) write(path string, data []byte) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// The report over the same segments, for the same question, is kept
// too (summary.Replay): merging the states of the segments makes each
// run's outcome, wall time and problems into the groups' again, a few
// microseconds a run, which for a large archive is the most of a report
// that reads no event. So a report asked again, nothing synced since,
// reads one file. It is kept when it has few groups (a report by run
// would be the size of the states), once per question, order and
// --running (a sync makes it new: the file of the last one is
// replaced), and holds the segments it is of and the span of cutoffs of
// --running in which its runs still going would still be said so.

// maxKeptGroups bounds the groups of a report kept whole.
const maxKeptGroups = 4096

// keptReport is the file of a report kept, gob-encoded after its header
// and the gob's checksum (CRC-32C).
type keptReport struct {
	Lo, Hi int64 // summary.State.RunningSpan
	Report *summary.Replay
}

// reportKey is what a kept report is of: the report's order and
// --running, and every segment read.
func reportKey(opts *options, entries []jsonl.Entry) (name, key string) {
	var b strings.Builder
	fmt.Fprintf(&b, "sort %q top %d running %d\n", opts.Sort, opts.Top, opts.Running)
	name = hashName(b.String())
	for i := range entries {
		b.WriteString(entries[i].Key())
		b.WriteByte('\n')
	}
	return "report-" + name, b.String()
}

// cutoff is the time from which a run without its end is running, as
// report.write sets it (Unix microseconds), or 0 when none is.
func cutoff(opts *options) int64 {
	if opts.Running <= 0 {
		return 0
	}
	return time.Now().Add(-opts.Running).UnixMicro()
}

// loadReport is the report kept for key, nil when none can be trusted or
// it is no longer the report: a run it says is running is no longer.
func (c *segmentCache) loadReport(name, key string, at int64) *summary.Replay {
	data, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		return nil
	}
	h := c.header(key)
	if !bytes.HasPrefix(data, h) || len(data) < len(h)+4 {
		return nil
	}
	body := data[len(h)+4:]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(h):]) {
		return nil // cut short or damaged: gob could read it wrong
	}
	var k keptReport
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&k) != nil || k.Report == nil {
		return nil
	}
	if at != 0 && (at <= k.Lo || at > k.Hi) {
		return nil
	}
	return k.Report
}

// keepReport keeps st's report under key, st set up as the report is
// written (SetRunning, SetOrder), and returns the state that writes it.
func (c *segmentCache) keepReport(name, key string, st *summary.State) *summary.State {
	if st.Groups() > maxKeptGroups {
		return st
	}
	k := keptReport{Report: st.Replay()}
	k.Lo, k.Hi = st.RunningSpan()
	var b bytes.Buffer
	if gob.NewEncoder(&b).Encode(&k) == nil {
		data := binary.LittleEndian.AppendUint32(c.header(key), crc32.Checksum(b.Bytes(), castagnoli))
		c.write(filepath.Join(c.dir, name), append(data, b.Bytes()...))
	}
	return summary.Replayed(st.Options(), k.Report)
}
