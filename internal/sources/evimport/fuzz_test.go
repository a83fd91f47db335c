package evimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/prices"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/rogpeppe/go-internal/txtar"
)

// fuzzConvert converts data, as the lines of one file of source, and
// checks that every event written is one valid JSON object on one line.
func fuzzConvert(t *testing.T, source string, data []byte) {
	f := &logFile{name: "fuzz.jsonl", source: source}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if json.Valid(line) {
			f.records = append(f.records, record{data: line, file: f.name, line: i + 1})
		}
	}
	if sourceNamed(source).document != nil && json.Valid(data) && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		f.document = data
	}
	c := newConverter(prices.Default())
	sessions := c.convertSource(sourceNamed(source), []*logFile{f})
	var out bytes.Buffer
	w := jsonl.NewWriter(&out)
	writeSessions(w, sessions, window.Window{})
	w.Flush()
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("%s: an event that is not a JSON object: %v\n%s", source, err, sc.Bytes())
		}
	}
}

// seeds adds the session files of the golden scripts that are of source.
func seeds(add func(...any), source string) {
	// the fixtures under the source's first default folder's top
	// (home/.claude/...)
	top := sourceNamed(source).folders("", func(string) string { return "" })[0]
	dir := strings.SplitAfter(filepath.ToSlash(top), "/")[0]
	names, _ := os.ReadDir("testdata")
	for _, n := range names {
		a, err := txtar.ParseFile("testdata/" + n.Name())
		if err != nil {
			continue
		}
		for _, file := range a.Files {
			if strings.HasPrefix(file.Name, "home/"+dir) {
				add(file.Data)
			}
		}
	}
	add([]byte(`{"type":"assistant","sessionId":"s","uuid":"u","message":{"id":"m","content":"x","usage":{"input_tokens":-1}}}`))
	add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"type":"gemini","content":[{"text":"\u2028"}],"tokens":{"input":1e3}}]}`))
}

// TestFuzzSeeds converts every source's seeds, for a source that has no
// fuzz target of its own yet too: each source in the table is fuzzed.
func TestFuzzSeeds(t *testing.T) {
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			var data [][]byte
			seeds(func(a ...any) { data = append(data, a[0].([]byte)) }, src.name)
			for _, d := range data {
				fuzzConvert(t, src.name, d)
			}
		})
	}
}

// FuzzClaude and the others: a target per source, for go test -fuzz.
func FuzzClaude(f *testing.F) {
	seeds(f.Add, "claude")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "claude", b) })
}
func FuzzCodex(f *testing.F) {
	seeds(f.Add, "codex")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "codex", b) })
}
func FuzzPi(f *testing.F) {
	seeds(f.Add, "pi")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "pi", b) })
}
func FuzzCopilot(f *testing.F) {
	seeds(f.Add, "copilot")
	f.Add([]byte(`{"type":"session.shutdown","id":"x","data":{"modelMetrics":{"m":{"usage":{"inputTokens":-1,"outputTokens":9}},"n":null}}}`))
	f.Add([]byte(`{"type":"assistant.message","id":"a","agentId":"s","data":{"apiCallId":"c","chunkCount":3,"chunkIndex":7,"toolRequests":[{"toolCallId":"t","arguments":"x"}],"outputTokens":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "copilot", b) })
}
func FuzzGemini(f *testing.F) {
	seeds(f.Add, "gemini")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "gemini", b) })
}
func FuzzQwen(f *testing.F) {
	seeds(f.Add, "qwen")
	f.Add([]byte(`{"uuid":"u","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","subagent_id":"a","input_token_count":-1}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "qwen", b) })
}

// FuzzOpencode: a message's and a part's data column, as opencode's
// database may hold them, made into the lines the export gives the
// conversion (opencodeRow), then converted. Each line is one line, and
// valid JSON unless the data, on one line, looks like an object but is
// no JSON (other data is kept as a string, for the conversion to
// report); the table decodes it
// as encoding/json does; the events written are JSON.
func FuzzOpencode(f *testing.F) {
	var data [][]byte
	opencodeSeeds(func(d []byte) { data = append(data, d) })
	for i, d := range data {
		f.Add(d, data[(i+1)%len(data)])
	}
	f.Add([]byte(`{"role":"assistant","tokens":{"input":5`), []byte("\u00a0{}"))
	f.Add([]byte("{\"role\":\"user\",\n\"text\":\"a\nb\"}"), []byte(`{"type":"tool","state":{"status":"error","input":"x","metadata":{"sessionId":7}}}`))
	f.Fuzz(func(t *testing.T, msg, part []byte) {
		sid, mid := []byte("ses_F"), []byte("msg_F")
		var log []byte
		log = append(log, `{"kind":"session","id":"ses_F","directory":"/d","version":"1.18.33"}`+"\n"...)
		log = opencodeRow(log, "message", msg, idName, mid, sessionName, sid)
		log = opencodeRow(log, "part", part, idName, []byte("prt_F"), messageName, mid, sessionName, sid)
		lines := bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n"))
		if len(lines) != 3 {
			t.Fatalf("%q, %q: %d lines, not 3", msg, part, len(lines))
		}
		for i, d := range [][]byte{msg, part} {
			line := lines[i+1]
			d = bytes.Trim(d, " \t\r\n")
			object := len(d) >= 2 && d[0] == '{' && d[len(d)-1] == '}'
			spliced := object && !bytes.Contains(d, []byte("\n"))
			if valid := json.Valid(line); valid == (spliced && !json.Valid(d)) {
				t.Fatalf("%q: its line %s is valid %v", d, line, valid)
			}
			if json.Valid(line) && plainKeysOf(line, opencodeNames) {
				sameAsEncodingJSON(t, opencodeTable, line)
			}
		}
		fuzzConvert(t, "opencode", log)
	})
}

// opencodeSeeds adds the data columns of the golden scripts' stores:
// the SQL strings that hold a JSON object.
func opencodeSeeds(add func([]byte)) {
	names, _ := filepath.Glob("testdata/opencode*.txtar")
	literal := regexp.MustCompile(`'(\{(?:[^']|'')*\})'`)
	for _, n := range names {
		a, err := txtar.ParseFile(n)
		if err != nil {
			continue
		}
		for _, file := range a.Files {
			for _, m := range literal.FindAllSubmatch(file.Data, -1) {
				add(bytes.ReplaceAll(m[1], []byte("''"), []byte("'")))
			}
		}
	}
}
