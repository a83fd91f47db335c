package evimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// record is one line of a log, kept until its file's session is
// converted.
type record struct {
	data []byte
	file string
	line int
	// unchecked: not known to be JSON yet; its decoding checks it
	unchecked bool
}

// logFile is one input: its lines, or for Gemini's older format the whole
// document, and the source found for it.
type logFile struct {
	name      string
	source    string
	records   []record
	document  []byte          // a whole-file JSON document (Gemini CLI before JSONL)
	companion bool            // found beside a named file, not named itself
	index     int             // its place among the files read
	keys      []string        // what ties it to other files (groups)
	parent    bool            // keys[0] is its parent's (a Codex rollout of a spawned agent): joins it if read
	size      int             // its bytes, as the scan found them
	seen      map[string]bool // the keys noted, as JSON strings
	ids       map[string]bool // the sessionIds the scan found (claudeKeys)
	regular   bool            // known to be a regular file when found (no need to ask again)
	wrong     string          // why it is not read, when --from names another source than its content's
	// once: not a regular file (a pipe, as <(zstdcat log.jsonl.zst)
	// names), which cannot be read again: the scan's reading of it
	// (kept, and its error) is what the conversion reads
	once    bool
	kept    []byte
	keptErr error
	// an incremental import's (incremental.restore): the file's identity
	// and modification time when looked at, and clean: as the state has
	// it, its source and keys from there, not scanned
	dev, ino uint64
	mtime    int64
	clean    bool
	// a session of a database file (source.database), name the file's
	db   *source
	sess dbSession
}

// label is the name f's lines are reported under: standard input's is
// jsonl.StdinName, as every tool names it.
func (f *logFile) label() string {
	if f.name == "-" {
		return jsonl.StdinName
	}
	if f.db != nil {
		return f.name + "#" + f.sess.id
	}
	return f.name
}

// defaultFolders are the session folders of every source, from the
// environment the agents themselves read.
func defaultFolders(getenv func(string) string) []string {
	home := homeDir(getenv)
	var dirs []string
	for _, src := range sources {
		dirs = append(dirs, src.folders(home, getenv)...)
	}
	return dirs
}

// homeDir is $HOME, else the system's idea of the user's home.
func homeDir(getenv func(string) string) string {
	if home := getenv("HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// sessionFile reports whether a file met in a walk is a session log: of
// a name one of the sources writes.
func sessionFile(name string) bool {
	base := filepath.Base(name)
	for _, src := range sources {
		if src.fileName == nil && jsonlName(base) || src.fileName != nil && src.fileName(name) || src.database != nil && src.database.base == base {
			return true
		}
	}
	return false
}

// expand turns the paths given into the files to read: a folder is
// walked (in lexical order) for session files; a file named brings its
// companions along (a Claude Code session's subagent files). Files last modified
// before since are left out unread; so is a database of another source
// than from (--from), reported to missing: its file's name says whose
// it is, and it is not opened. missing reports a path that cannot
// be read; empty, if set, a folder that holds no session file at all;
// skipped a file of a session file's name in a folder that is not a
// regular file (a FIFO would hang the reading for ever; a file named is
// read whatever it is, as <(zstdcat log.jsonl.zst) names a pipe).
func expand(paths []string, from string, since time.Time, missing func(string, error), empty func(string), skipped func(path, what string)) []*logFile {
	var out []*logFile
	seen := map[string]bool{}
	add := func(name string, companion, regular bool) {
		if seen[name] {
			return
		}
		if src := databaseOf(name); src != nil && name != "-" {
			seen[name] = true
			if from != "auto" && from != src.name {
				missing(name, errors.New("--from "+from+", but this is "+src.what+"; skipped"))
				return
			}
			out = append(out, databaseSessions(src, name, since, missing)...)
			return
		}
		if !since.IsZero() && name != "-" {
			if fi, err := os.Stat(name); err == nil && fi.ModTime().Before(since) {
				return
			}
		}
		seen[name] = true
		out = append(out, &logFile{name: name, companion: companion, regular: regular})
	}
	for _, p := range paths {
		if p == "-" {
			add(p, false, false)
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			missing(p, err)
			continue
		}
		if !fi.IsDir() {
			add(p, false, fi.Mode().IsRegular())
			for _, c := range companions(p) {
				add(c, true, false)
			}
			continue
		}
		root := p
		if li, err := os.Lstat(p); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			// a link to a folder (~/.claude kept with the dotfiles):
			// WalkDir would take the link for a file and walk nothing
			root += string(filepath.Separator)
		}
		found := false
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				missing(path, err)
				return nil
			}
			if d.IsDir() || !sessionFile(path) {
				return nil
			}
			found = true
			mode := d.Type()
			if mode&fs.ModeSymlink != 0 {
				// a link to a session file is read, as before; one to
				// anything else is not
				if fi, err := os.Stat(path); err == nil {
					mode = fi.Mode().Type()
				}
			}
			if mode.IsRegular() {
				add(path, false, d.Type().IsRegular())
			} else if !mode.IsDir() {
				skipped(path, fileKind(mode))
			}
			return nil
		})
		if !found && empty != nil {
			empty(p)
		}
	}
	return out
}

// databaseSessions are the sessions of the database file name of src,
// those updated since since (when set) as logFiles; a database that
// cannot be read is reported to missing.
func databaseSessions(src *source, name string, since time.Time, missing func(string, error)) []*logFile {
	ss, err := src.database.sessions(name)
	if err != nil {
		missing(name, err)
		return nil
	}
	var out []*logFile
	for _, s := range ss {
		if !since.IsZero() && s.updated < since.UnixMilli() {
			continue
		}
		out = append(out, &logFile{name: name, source: src.name, keys: []string{s.id}, db: src, sess: s, regular: true, size: dbSessionSize})
	}
	return out
}

// dbSessionSize is what a database session's lines are taken to weigh
// before they are read, for the workers' memory (jsonl.NewOrdered).
const dbSessionSize = 256 << 10

// fileKind names what a file that is not a regular file is.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a link to nothing"
	}
	return "not a file"
}

// companions are the files that go with the file name, named: those
// of every source's rule, in the table's order (a name fits one
// source's layout at most, in practice).
func companions(name string) []string {
	var out []string
	for _, src := range sources {
		if src.companions != nil {
			out = append(out, src.companions(name)...)
		}
	}
	return out
}

// read reads f's records from each, which frames them (and reports a
// line holding a NUL byte), reporting a line that is not JSON to bad. A
// file whose first line is not JSON but which is one JSON document as a
// whole (Gemini CLI's older session files) is kept whole. stable says
// that a record's data stays valid once each moves on (a file read
// whole): it is not copied then. enough, when not nil, ends the reading
// once it reports that the records held are enough (the scan's first
// lines). Unless check is set, the records after the first are not
// checked here but when they are decoded (record.unchecked).
func read(each func(func(jsonl.Record) error) error, bad func(jsonl.Record, error) error, f *logFile, stable, check bool, enough func() bool) error {
	var held []record // lines of what may be one document
	var chunk []byte  // the lines are copied into chunks: one allocation for many
	err := each(func(rec jsonl.Record) error {
		data := rec.Data
		if !stable && !rec.Own {
			if len(chunk)+len(data) > cap(chunk) {
				chunk = make([]byte, 0, max(64<<10, len(data)))
			}
			chunk = append(chunk, data...)
			data = chunk[len(chunk)-len(data) : len(chunk) : len(chunk)]
		}
		r := record{data: data, file: rec.File, line: rec.Line}
		if held != nil || (len(f.records) == 0 && jsonscan.Check(data) != nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))) {
			held = append(held, r)
			return nil
		}
		if !check && len(f.records) > 0 {
			r.unchecked = true
		} else if err := jsonscan.Check(data); err != nil {
			return bad(rec, err)
		}
		f.records = append(f.records, r)
		if enough != nil && enough() {
			return errEnough
		}
		return nil
	})
	if err == errEnough {
		err = nil
	}
	if held == nil || err != nil {
		return err
	}
	var doc []byte
	for _, r := range held {
		doc = append(append(doc, r.data...), '\n')
	}
	if json.Valid(doc) {
		f.document = doc
		return nil
	}
	for _, r := range held {
		if err := jsonscan.Check(r.data); err != nil {
			if err := bad(jsonl.Record{Data: r.data, File: r.file, Line: r.line}, err); err != nil {
				return err
			}
			continue
		}
		f.records = append(f.records, r)
	}
	return nil
}

// documentOf is the source whose session documents data is one of
// (its document rule; oneLine: written on one line), "" for none.
func documentOf(data []byte, oneLine bool) string {
	for _, src := range sources {
		if src.document != nil && src.document(data, oneLine) {
			return src.name
		}
	}
	return ""
}

// errEnough ends a reading that has what it needs.
var errEnough = errors.New("enough read")

// wholeFile is read's each for data, the whole of the file called name:
// its records, framed as jsonl frames them, a line holding a NUL byte
// reported to bad.
func wholeFile(name string, data []byte, bad func(jsonl.Record, error) error) func(func(jsonl.Record) error) error {
	return func(fn func(jsonl.Record) error) error {
		var err error
		jsonl.Lines(data, func(line int, rec []byte, nul bool) bool {
			r := jsonl.Record{Data: rec, File: name, Line: line}
			if nul {
				err = bad(r, jsonl.ErrNUL)
			} else {
				err = fn(r)
			}
			return err == nil
		})
		return err
	}
}

// detectLines is how many of a file's first records detect looks at.
const detectLines = 50

// probe is what detection looks at in a record.
type probe struct {
	Type        string          `json:"type"`
	UUID        string          `json:"uuid"`
	SessionID   string          `json:"sessionId"`
	LeafUUID    string          `json:"leafUuid"`
	MessageID   string          `json:"messageId"`
	ID          string          `json:"id"`
	ProjectHash string          `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	Payload     json.RawMessage `json:"payload"`
	Message     json.RawMessage `json:"message"`
	Messages    json.RawMessage `json:"messages"`
	Cwd         string          `json:"cwd"`
	RewindTo    string          `json:"$rewindTo"`
	Set         json.RawMessage `json:"$set"`
	Kind        string          `json:"kind"`
	RunID       string          `json:"run_id"`
	Seq         json.RawMessage `json:"seq"`
	Data        json.RawMessage `json:"data"`
	// data is the record, for a claim that looks at a member the
	// probe does not decode (jsonscan.Lookup)
	data []byte
}

// detect finds the source of a file from its first records ("" when none
// fits).
func detect(f *logFile) string {
	if f.document != nil {
		return documentOf(f.document, false)
	}
	if len(f.records) == 1 && sourceOfRecord(f.records[0].data) == "" {
		// a document written on one line, as read reads it: a
		// source's whether or not its record says so, as when
		// pretty-printed
		if s := documentOf(f.records[0].data, true); s != "" {
			return s
		}
	}
	for i, r := range f.records {
		if i == detectLines {
			break
		}
		if s := sourceOfRecord(r.data); s != "" {
			return s
		}
	}
	return ""
}

// envelope is what a file of envelope events looks like (looks): the
// output of evimport or of another ev* tool, no agent's log.
const envelope = "envelope"

// looksLike names what a source's files, or envelope events, look like,
// for the message that --from names another.
func looksLike(l string) string {
	if l == envelope {
		return "envelope events as evimport writes them, not a session log"
	}
	return sourceNamed(l).what
}

// looks is what f's first records look like to one who expects from's:
// from when one of them says it is of from (be the others what they
// may: --from is there for a file that detect gets wrong), else the
// first source (or envelope) one of them says, else what detect finds
// ("" for nothing).
func looks(f *logFile, from string) string {
	first := ""
	for i, r := range f.records {
		if i == detectLines {
			break
		}
		p := probe{data: r.data}
		if json.Unmarshal(r.data, &p) != nil {
			continue
		}
		s := p.source()
		if s != "" && s == from {
			return s
		}
		if s == "" && p.envelope() {
			s = envelope
		}
		if first == "" {
			first = s
		}
	}
	if first != "" {
		return first
	}
	return detect(f)
}

// envelope reports whether the record is an envelope event: a kind and
// a payload object, with a seq or a run_id.
func (p *probe) envelope() bool {
	return p.Kind != "" && len(p.Payload) > 0 && p.Payload[0] == '{' && (len(p.Seq) > 0 || p.RunID != "")
}

// sourceOfRecord is the source a record says it is of, "" for none.
func sourceOfRecord(data []byte) string {
	p := probe{data: data}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	return p.source()
}

// source is the source whose claim the record fits, the surest claim
// first (claim), "" for none.
func (p *probe) source() string {
	for sure := marked; sure <= loose; sure++ {
		for _, src := range sources {
			for _, c := range src.claims {
				if c.sure == sure && c.holds(p) {
					return src.name
				}
			}
		}
	}
	return ""
}

// groupKeys notes what ties f to other files, as its source says
// (source.keys).
func (f *logFile) groupKeys() {
	if src := sourceNamed(f.source); src != nil {
		src.noteKeys(f)
	}
}

// noteID adds a sessionId, v its JSON value, to f's keys.
func (f *logFile) noteID(v []byte) {
	if len(v) < 3 || v[0] != '"' {
		return
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	if f.seen[string(v)] {
		return
	}
	f.seen[string(v)] = true
	if id, ok := jsonscan.Unquote(nil, v); ok {
		f.keys = append(f.keys, string(id))
		if f.ids != nil {
			f.ids[string(id)] = true
		}
	}
}

// groups puts the files that must be converted together in a group: the
// files of a source that share a key (a Claude sessionId), and a file
// whose first key is its parent's (a Codex rollout of a spawned agent)
// with its parent's, when that is among the files; each group's files
// in the order they were read, the groups in the order of their first
// file.
func groups(files []*logFile) [][]*logFile {
	parent := make([]int, len(files))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		a, b = find(a), find(b)
		if a > b {
			a, b = b, a
		}
		parent[b] = a
	}
	owner := map[string]int{} // source and key -> the first file with it
	for i, f := range files {
		if f.parent {
			continue // joins its parent below, if its parent is read
		}
		for _, k := range f.keys {
			if k == "" {
				continue
			}
			k = f.source + "\x00" + k
			if j, ok := owner[k]; ok {
				union(i, j)
			} else {
				owner[k] = i
			}
		}
	}
	for i, f := range files {
		if f.parent {
			if j, ok := owner[f.source+"\x00"+f.keys[0]]; ok {
				union(i, j)
			}
		}
	}
	var out [][]*logFile
	for _, g := range gather(len(files), func(i int) (int, bool) { return find(i), true }) {
		group := make([]*logFile, len(g))
		for k, i := range g {
			group[k] = files[i]
		}
		out = append(out, group)
	}
	return out
}

// gather puts the indexes 0 to n-1 into lists by their key (those whose
// key is not ok in none), the lists in the order of their first index.
func gather[K comparable](n int, key func(i int) (K, bool)) [][]int {
	var out [][]int
	at := map[K]int{}
	for i := range n {
		k, ok := key(i)
		if !ok {
			continue
		}
		g, seen := at[k]
		if !seen {
			g = len(out)
			at[k] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}
