package evimport

import "testing"

// A file's format is found from its first records, whatever it is called.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		want  string
		lines []string
	}{
		{"claude", []string{`{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}`, `{"type":"user","sessionId":"s","uuid":"u"}`}},
		{"claude", []string{`{"type":"summary","summary":"Install guide","leafUuid":"u"}`}},
		{"claude", []string{`{"type":"assistant","sessionId":"s","uuid":"u","message":{}}`}},
		{"codex", []string{`{"timestamp":"2026-03-06T08:00:00Z","type":"session_meta","payload":{"id":"x"}}`}},
		{"codex", []string{`{"timestamp":"2026-03-06T08:00:00Z","type":"event_msg","payload":{"type":"token_count"}}`}},
		{"pi", []string{`{"type":"session","version":3,"id":"x","cwd":"/"}`}},
		{"pi", []string{`{"type":"message","message":{"role":"user","content":[]}}`}},
		{"gemini", []string{`{"sessionId":"s","projectHash":"p","startTime":"2026-03-09T13:00:00Z"}`}},
		{"gemini", []string{`{"id":"g1","timestamp":"2026-03-09T13:00:01Z","type":"gemini","content":""}`}},
		{"gemini", []string{`{"$rewindTo":"g1"}`}},
		{"", []string{`{"seq":1,"ts":1,"run_id":"r","kind":"user_message","payload":{}}`, `{"title":"groceries"}`}},
	} {
		f := &logFile{name: "f.jsonl"}
		for i, l := range c.lines {
			f.records = append(f.records, record{data: []byte(l), line: i + 1})
		}
		if got := detect(f); got != c.want {
			t.Errorf("detect(%s) = %q, want %q", c.lines, got, c.want)
		}
	}
	doc := &logFile{document: []byte("{\n \"sessionId\": \"s\",\n \"messages\": []\n}\n")}
	if got := detect(doc); got != "gemini" {
		t.Errorf("a Gemini CLI document: %q", got)
	}
	if got := detect(&logFile{document: []byte(`{"messages":[]}`)}); got != "" {
		t.Errorf("a document without sessionId: %q", got)
	}
}
