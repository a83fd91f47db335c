package evimport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/prices"
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
	if source == "gemini" && json.Valid(data) && bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		f.document = data
	}
	c := newConverter(prices.Default())
	var sessions []*session
	switch source {
	case "claude":
		sessions = c.claude([]*logFile{f})
	case "codex":
		sessions = c.codexAll([]*logFile{f})
	case "pi":
		sessions = c.pi(f)
	case "gemini":
		sessions = c.gemini(f)
	case "copilot":
		sessions = c.copilotAll([]*logFile{f})
	}
	var out bytes.Buffer
	w := jsonl.NewWriter(&out)
	writeSessions(w, sessions, window{})
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
func seeds(f *testing.F, source string) {
	names, _ := os.ReadDir("testdata")
	for _, n := range names {
		a, err := txtar.ParseFile("testdata/" + n.Name())
		if err != nil {
			continue
		}
		for _, file := range a.Files {
			dir := map[string]string{"claude": ".claude/", "codex": ".codex/", "pi": ".pi/", "gemini": ".gemini/", "copilot": ".copilot/"}[source]
			if strings.HasPrefix(file.Name, "home/"+dir) {
				f.Add(file.Data)
			}
		}
	}
	f.Add([]byte(`{"type":"assistant","sessionId":"s","uuid":"u","message":{"id":"m","content":"x","usage":{"input_tokens":-1}}}`))
	f.Add([]byte(`{"sessionId":"s","projectHash":"p","messages":[{"type":"gemini","content":[{"text":"\u2028"}],"tokens":{"input":1e3}}]}`))
}

func FuzzClaude(f *testing.F) {
	seeds(f, "claude")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "claude", b) })
}
func FuzzCodex(f *testing.F) {
	seeds(f, "codex")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "codex", b) })
}
func FuzzPi(f *testing.F) {
	seeds(f, "pi")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "pi", b) })
}
func FuzzCopilot(f *testing.F) {
	seeds(f, "copilot")
	f.Add([]byte(`{"type":"session.shutdown","id":"x","data":{"modelMetrics":{"m":{"usage":{"inputTokens":-1,"outputTokens":9}},"n":null}}}`))
	f.Add([]byte(`{"type":"assistant.message","id":"a","agentId":"s","data":{"apiCallId":"c","chunkCount":3,"chunkIndex":7,"toolRequests":[{"toolCallId":"t","arguments":"x"}],"outputTokens":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "copilot", b) })
}
func FuzzGemini(f *testing.F) {
	seeds(f, "gemini")
	f.Fuzz(func(t *testing.T, b []byte) { fuzzConvert(t, "gemini", b) })
}
