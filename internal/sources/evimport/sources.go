package evimport

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/shell/cli"
)

// source is one agent whose logs evimport reads: all that the rest of
// the package asks of it. Each agent's file (claude.go, codex.go, pi.go,
// gemini.go, copilot.go) declares its row; sources lists them. The
// package doc says what each member is for and how a source declares
// what a session's files are.
type source struct {
	name     string // the --from word, and the events' "source"
	title    string // the agent as messages name it: "Claude Code"
	longName string // as --from's help names it, when more than title: "OpenAI Codex"
	what     string // what one of its files is, for --from's message: "a Claude Code session"

	// places are its default folders (or files), each in a folder of the
	// agent's that an environment variable moves, as the agent itself
	// reads it: --help's folder list, the man page's ENVIRONMENT and the
	// folders read with no FILE all come from them (place).
	places []place

	// fileName reports whether a file of this base name, met in a
	// folder's walk, is one of its session files (nil: jsonlName).
	fileName func(base string) bool
	// companions are the files read with a file named on the command
	// line: those of the same session (Claude Code's subagents). nil:
	// none.
	companions func(name string) []string

	// claims are how one record says it is of this source; document,
	// when set, whether a file that is one JSON value (oneLine: written
	// on one line, which might be a first record too) is one of its
	// session documents.
	claims   []claim
	document func(data []byte, oneLine bool) bool

	// database, for a source that keeps its sessions in a database file
	// (opencode's SQLite) rather than in files of their own: that
	// file's name, and how its sessions are listed and read (database).
	database *database

	// keys notes what ties a file to others (logFile.keys), from its
	// records (or document); keyed reports whether the lines the scan
	// read for the format held it (nil: nothing to find), else the scan
	// looks in all of them. lineKeys, for a source whose every line
	// names its session (Claude Code's sessionId): keys is not called,
	// the scan notes the sessionId of every line of the head and tail
	// (claudeKeys), and the conversion sets converter.missed for one
	// it did not find.
	keys     func(f *logFile)
	keyed    func(f *logFile) bool
	lineKeys bool
	// session names the session a file holds, so that --follow converts
	// again only the sessions that grew (not ok: the file alone).
	session func(f *logFile) (key string, ok bool)
	// sessionKey, for a source whose records name their session (as a
	// JSON string; nil for a record that names none), stands for keys
	// and session: a file's keys are what its first such record names,
	// its session what its first line names (noteKeys, sessionOf).
	sessionKey func(data []byte) []byte

	// convert converts a group of files (groups: those the keys tie
	// together; for a source without keys, one file) into sessions, for
	// a pass and for --follow alike. It sets each session's at.file and
	// at.line; at.source is its rank, set by convertSource.
	// convertSession, for a source whose sessions are converted one by
	// one, stands for convert: it is given the files of one session
	// (those whose records sessionKey says name it, else one file), and
	// the session is placed where the first of them was found.
	convert        func(c *converter, files []*logFile) []*session
	convertSession func(c *converter, files []*logFile) *session

	// known are the record types it reads or passes over on purpose;
	// another is counted as of an unknown type (converter.known).
	known map[string]bool
}

// sources are the agents evimport reads, in the order their sessions are
// placed among events of the same time (their rank).
var sources = []*source{&claudeSource, &codexSource, &piSource, &geminiSource, &copilotSource, &opencodeSource, &qwenSource}

// certainty is how sure a claim is (claim).
type certainty int

const (
	// marked: a type or member that no other agent writes
	marked certainty = iota
	// shaped: members another agent's records may have too
	shaped
	// loose: a shape tried after every other
	loose
)

// claim is one way a record says it is of a source: the claims of every
// source are tried, the surest first, then in the table's order, so that
// a record that fits two is the surer one's.
type claim struct {
	sure  certainty
	holds func(p *probe) bool
}

// sourceNamed is the row of the source called name, nil for none.
func sourceNamed(name string) *source {
	for _, s := range sources {
		if s.name == name {
			return s
		}
	}
	return nil
}

// convertSource converts a group of the files of one source, placing its
// sessions by the source's rank.
func (c *converter) convertSource(s *source, files []*logFile) []*session {
	var ss []*session
	if s.convertSession != nil {
		ss = s.eachSession(c, files)
	} else {
		ss = s.convert(c, files)
	}
	rank := slices.Index(sources, s) // its place in the table
	for _, x := range ss {
		x.at.source = rank
	}
	return ss
}

// jsonlName is the file-name rule of a source that writes JSON Lines:
// *.jsonl, compressed or not.
func jsonlName(base string) bool {
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".jsonl.zst"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

// eachRecord decodes the records of a session's files in order, as T,
// and hands fn each met for the first time by its id (a copy of a
// session repeats records: they are read once); d is the decoder, for
// the members fn decodes apart. A record that does not decode, or whose
// member fn finds wrong (its error), is reported as a bad line.
func eachRecord[T any](c *converter, tb recordTable[T], files []*logFile, id func(*T) string, fn func(d *fields, l *T) error) {
	seen := map[string]bool{}
	d := c.takeFields()
	defer c.giveFields(d)
	for _, f := range files {
		decodeWith(c, d, tb, f.records, func(r record, l *T) {
			if !firstTime(seen, id(l)) {
				return
			}
			if err := fn(d, l); err != nil {
				c.bad(r, err)
			}
		})
	}
}

// firstTime reports whether the record id is met for the first time in
// a session's files, noting it: a copy of a session (Copilot CLI's
// history, a copied Qwen Code chat) repeats records, read once. A record
// without an id always is.
func firstTime(seen map[string]bool, id string) bool {
	if id == "" {
		return true
	}
	if seen[id] {
		return false
	}
	seen[id] = true
	return true
}

// noteKeys notes what ties f to other files (logFile.keys), as the
// source says: by sessionKey, the session the first record that names
// one names; else by its keys.
func (s *source) noteKeys(f *logFile) {
	switch {
	case s.sessionKey != nil:
		for _, r := range f.records {
			if v := s.sessionKey(r.data); v != nil {
				f.noteID(v)
				return
			}
		}
	case s.keys != nil:
		s.keys(f)
	}
}

// sessionOf names the session f holds, as the source says: by
// sessionKey, the session its first line names (a file whose first line
// names none is the continuation of a file rotated away, named by no
// session of its own); else by session.
func (s *source) sessionOf(f *logFile) (string, bool) {
	switch {
	case s.sessionKey != nil:
		if len(f.records) == 0 {
			return "", false
		}
		v := s.sessionKey(f.records[0].data)
		return string(v), len(v) > 2 && v[0] == '"'
	case s.session != nil:
		return s.session(f)
	}
	return "", false
}

// place is where an agent keeps its sessions: the paths In of its
// folder, which is $Var when the variable is set, else Home under $HOME
// ("" for $HOME itself). Whose says what $Var names, for the man page.
// A place with Unmoved is read only while that variable is not set
// (Claude Code's XDG folder, passed over once CLAUDE_CONFIG_DIR moves
// its folder).
type place struct {
	Var, Home, Whose string
	In               []string
	Unmoved          string
}

// paths are the place's paths, home being $HOME; none when an Unmoved
// variable is set.
func (p place) paths(home string, getenv func(string) string) []string {
	if p.Unmoved != "" && getenv(p.Unmoved) != "" {
		return nil
	}
	dir := getenv(p.Var)
	if dir == "" {
		dir = filepath.Join(home, p.Home)
	}
	var out []string
	for _, in := range p.In {
		out = append(out, filepath.Join(dir, in))
	}
	return out
}

// folders are a source's default folders, from the environment the
// agent itself reads.
func (s *source) folders(home string, getenv func(string) string) []string {
	var out []string
	for _, p := range s.places {
		out = append(out, p.paths(home, getenv)...)
	}
	return out
}

// homePaths are the place's paths under ~, as the help writes them.
func (p place) homePaths() []string {
	var out []string
	for _, f := range p.paths("~", func(string) string { return "" }) {
		out = append(out, filepath.ToSlash(f))
	}
	return out
}

// movedPaths are the place's paths under its variable, as the help
// writes them: "$CODEX_HOME/sessions".
func (p place) movedPaths() []string {
	moved := make([]string, len(p.In))
	for i, in := range p.In {
		moved[i] = "$" + p.Var + "/" + in
	}
	return moved
}

// help says the place for --help: "~/.codex/sessions (or
// $CODEX_HOME/sessions)".
func (p place) help() string {
	return joinList(p.homePaths(), "and") + " (or " + joinList(p.movedPaths(), "and") + ")"
}

// env is the man page's entry for the place's variable.
func (p place) env() cli.EnvVar {
	verb := " is read instead of "
	if len(p.In) > 1 {
		verb = " are read instead of "
	}
	return cli.EnvVar{Name: p.Var, Text: p.Whose + ", when set: " + joinList(p.movedPaths(), "and") + verb + joinList(p.homePaths(), "and") + "."}
}

// sourceTitles lists the sources' titles joined by and (or or):
// "Claude Code, Codex, pi, Gemini CLI and Copilot CLI".
func sourceTitles(and string) string {
	var ts []string
	for _, s := range sources {
		ts = append(ts, s.title)
	}
	return joinList(ts, and)
}

// joinList joins words as a sentence lists them: "a, b and c".
func joinList(words []string, and string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}

// noSessionLog is why a file in no known format is skipped.
func noSessionLog() string { return "not a session log of " + sourceTitles("or") }

// sourceVars are the help's variables: --from's words (${sources}) and
// what each is (${sourceHelp}).
func sourceVars() map[string]string {
	var names, help []string
	for _, s := range sources {
		names = append(names, s.name)
		h := s.name
		if l := cmp.Or(s.longName, s.title); l != s.name {
			h += " (" + l + ")"
		}
		help = append(help, h)
	}
	return map[string]string{"sources": strings.Join(names, ","), "sourceHelp": strings.Join(help, ", ")}
}

// sourceFolders says the default folders for --help.
func sourceFolders() string {
	var folders []string
	for _, s := range sources {
		for _, p := range s.places {
			folders = append(folders, p.help())
		}
	}
	return strings.Join(folders, "; ")
}

// sourceEnv is the man page's ENVIRONMENT for the sources: HOME, under
// which the folders are when no variable moves them, then each source's
// variables.
func sourceEnv() []cli.EnvVar {
	var homes []string
	var env []cli.EnvVar
	for _, s := range sources {
		for _, p := range s.places {
			homes = append(homes, p.homePaths()...)
			env = append(env, p.env())
		}
	}
	return append([]cli.EnvVar{{Name: "HOME", Text: "With no FILE, the agents' session folders are looked for under it: " + joinList(homes, "and") + "."}}, env...)
}

// database is how a source reads the database file that holds its
// sessions: each session (a top-level one with its subagents') is a
// logFile of its own (logFile.session), whose lines export gives, so
// that the scan, the groups, the conversion and --follow see a session
// as they see a file.
type database struct {
	base     string // the file's base name: opencode.db
	sessions func(path string) ([]dbSession, error)
	// export appends the session's lines to buf
	export func(path string, s dbSession, buf []byte) ([]byte, error)
}

// dbSession is a session of a database: its id, the sessions read with
// it (its subagents'), and when any of them last changed (the database's
// own clock, milliseconds).
type dbSession struct {
	id      string
	members []string
	updated int64
}

// databaseOf is the source whose database file name is, nil for none.
func databaseOf(name string) *source {
	base := filepath.Base(name)
	for _, s := range sources {
		if s.database != nil && s.database.base == base {
			return s
		}
	}
	return nil
}

// eachSession converts files with convertSession, a session's files at
// a time (sessionGroups; each file alone for a source without
// sessionKey), each session placed where the first of its files was
// found.
func (s *source) eachSession(c *converter, files []*logFile) []*session {
	var groups [][]*logFile
	if s.sessionKey != nil {
		groups = sessionGroups(files, s.sessionKey)
	} else {
		for _, f := range files {
			groups = append(groups, []*logFile{f})
		}
	}
	out := make([]*session, 0, len(groups))
	for _, fs := range groups {
		first := firstIndex(fs)
		x := s.convertSession(c, fs)
		x.at = order{file: first}
		out = append(out, x)
	}
	return out
}

// firstIndex is where the first of files was found among the inputs.
func firstIndex(files []*logFile) int {
	return slices.MinFunc(files, func(a, b *logFile) int { return cmp.Compare(a.index, b.index) }).index
}

// sessionGroups splits a group of files into the sessions they hold, in
// the order of their first files: the files whose first record with a
// key (key returns the session's id as a JSON string, else nil) names
// the same session; a file with none is a session of its own.
func sessionGroups(files []*logFile, key func(data []byte) []byte) [][]*logFile {
	var keys []string
	bySession := map[string][]*logFile{}
	for _, f := range files {
		k := "\x00" + f.name
		for _, r := range f.records {
			if v := key(r.data); len(v) > 2 && v[0] == '"' {
				k = unquote(v)
				break
			}
		}
		if bySession[k] == nil {
			keys = append(keys, k)
		}
		bySession[k] = append(bySession[k], f)
	}
	out := make([][]*logFile, 0, len(keys))
	for _, k := range keys {
		out = append(out, bySession[k])
	}
	return out
}
