package evimport

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
}

// logFile is one input: its lines, or for Gemini's older format the whole
// document, and the source found for it.
type logFile struct {
	name      string
	source    string
	records   []record
	document  []byte // a whole-file JSON document (Gemini CLI before JSONL)
	companion bool   // found beside a named file, not named itself
}

// defaultFolders are the session folders of every agent, from the
// environment the agents themselves read.
func defaultFolders(getenv func(string) string) []string {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	or := func(env, sub, def string) string {
		if v := getenv(env); v != "" {
			return filepath.Join(v, sub)
		}
		return filepath.Join(home, def)
	}
	claude := []string{or("CLAUDE_CONFIG_DIR", "projects", ".claude/projects")}
	if getenv("CLAUDE_CONFIG_DIR") == "" {
		// some versions of Claude Code wrote to the XDG folder instead
		// (ccusage reads both too); a session in both is counted once
		claude = append(claude, or("XDG_CONFIG_HOME", "claude/projects", ".config/claude/projects"))
	}
	return append(claude,
		or("CODEX_HOME", "sessions", ".codex/sessions"),
		or("PI_CODING_AGENT_DIR", "sessions", ".pi/agent/sessions"),
		// Gemini CLI's own home (its homedir()), under which .gemini
		or("GEMINI_CLI_HOME", ".gemini/tmp", ".gemini/tmp"))
}

// sessionFile reports whether a file met in a walk is a session log:
// JSON Lines (compressed or not), or Gemini's session-*.json.
func sessionFile(name string) bool {
	base := filepath.Base(name)
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".jsonl.zst"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json")
}

// expand turns the paths given into the files to read: a folder is
// walked (in lexical order) for session files; a named Claude session
// brings its subagent files along as companions. Files last modified
// before since are left out unread. missing reports a path that cannot
// be read.
func expand(paths []string, since time.Time, missing func(string, error)) []*logFile {
	var out []*logFile
	seen := map[string]bool{}
	add := func(name string, companion bool) {
		if seen[name] {
			return
		}
		if !since.IsZero() && name != "-" {
			if fi, err := os.Stat(name); err == nil && fi.ModTime().Before(since) {
				return
			}
		}
		seen[name] = true
		out = append(out, &logFile{name: name, companion: companion})
	}
	for _, p := range paths {
		if p == "-" {
			add(p, false)
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			missing(p, err)
			continue
		}
		if !fi.IsDir() {
			add(p, false)
			for _, c := range companions(p) {
				add(c, true)
			}
			continue
		}
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				missing(path, err)
				return nil
			}
			if !d.IsDir() && sessionFile(path) {
				add(path, false)
			}
			return nil
		})
	}
	return out
}

// companions are the subagent files of the Claude session file name:
// <session>/subagents/agent-*.jsonl, and agent-*.jsonl beside it (the
// layout before Claude Code 2.1). Those of other sessions are dropped
// when their lines are read (their sessionId is another).
func companions(name string) []string {
	if g := geminiCompanions(name); g != nil {
		return g
	}
	if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(filepath.Base(name), "agent-") {
		return nil
	}
	dir := filepath.Dir(name)
	stem := strings.TrimSuffix(filepath.Base(name), ".jsonl")
	var out []string
	for _, pattern := range []string{filepath.Join(dir, stem, "subagents", "agent-*.jsonl"), filepath.Join(dir, "agent-*.jsonl")} {
		m, _ := filepath.Glob(pattern)
		sort.Strings(m)
		out = append(out, m...)
	}
	return out
}

// read reads f's lines through in (framing, decompression, bad-line
// reports). A file whose first line is not JSON but which is one JSON
// document as a whole (Gemini CLI's older session files) is kept whole.
func read(in *jsonl.Input, f *logFile) error {
	in.Names = []string{f.name}
	var held []record // lines of what may be one document
	err := in.Each(func(rec jsonl.Record) error {
		data := append([]byte(nil), rec.Data...)
		r := record{data: data, file: rec.File, line: rec.Line}
		if held != nil || (len(f.records) == 0 && jsonscan.Check(data) != nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))) {
			held = append(held, r)
			return nil
		}
		if err := jsonscan.Check(data); err != nil {
			return in.Bad(rec, err)
		}
		f.records = append(f.records, r)
		return nil
	})
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
			if err := in.Bad(jsonl.Record{File: r.file, Line: r.line}, err); err != nil {
				return err
			}
			continue
		}
		f.records = append(f.records, r)
	}
	return nil
}

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
}

// detect finds the source of a file from its first records ("" when none
// fits).
func detect(f *logFile) string {
	if f.document != nil {
		var p probe
		if json.Unmarshal(f.document, &p) == nil && p.SessionID != "" && p.Messages != nil {
			return "gemini"
		}
		return ""
	}
	for i, r := range f.records {
		if i == 50 {
			break
		}
		var p probe
		if json.Unmarshal(r.data, &p) != nil {
			continue
		}
		if s := p.source(); s != "" {
			return s
		}
	}
	return ""
}

func (p *probe) source() string {
	switch {
	case p.Type == "session" && (p.Cwd != "" || p.ID != ""):
		return "pi"
	case p.Payload != nil && (p.Type == "session_meta" || p.Type == "response_item" || p.Type == "event_msg" || p.Type == "turn_context"):
		return "codex"
	case p.RewindTo != "" || p.Set != nil:
		return "gemini"
	case p.SessionID != "" && p.ProjectHash != "":
		return "gemini"
	case p.ID != "" && p.UUID == "" && (p.Type == "gemini" || p.Type == "user" && p.SessionID == "" && p.Message == nil):
		return "gemini"
	case p.SessionID != "" && p.UUID != "", p.Type == "summary" && p.LeafUUID != "", p.Type == "file-history-snapshot" && p.MessageID != "":
		return "claude"
	case p.Type == "message" && p.Message != nil:
		return "pi"
	}
	return ""
}
