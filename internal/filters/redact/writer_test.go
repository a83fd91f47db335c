package redact

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writes records every Write the Writer makes.
type writes struct {
	calls [][]byte
	err   error
}

func (w *writes) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

func (w *writes) all() []byte { return bytes.Join(w.calls, nil) }

// whole is the corpus redacted a line at a time.
func whole(t *testing.T, in []byte) []byte {
	t.Helper()
	r := New()
	var out []byte
	for _, l := range bytes.SplitAfter(in, []byte("\n")) {
		line := bytes.TrimSuffix(l, []byte("\n"))
		red, changed := r.Line(nil, line)
		if !changed {
			red = line
		}
		out = append(out, red...)
		if len(l) > len(line) {
			out = append(out, '\n')
		}
	}
	return out
}

// However the lines are cut into writes, the output is the same, and each
// Write hands on every line it completes.
func TestWriterCuts(t *testing.T) {
	files := corpora()
	in := []byte(files["secrets.jsonl"] + files["nearmiss.jsonl"])
	want := whole(t, in)
	for _, size := range []int{1, 2, 7, 64, 100, 4096, len(in)} {
		var ws writes
		w := NewWriter(&ws, New())
		lines := 0
		for p := in; len(p) > 0; {
			n := min(size, len(p))
			if _, err := w.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			lines += bytes.Count(p[:n], []byte("\n"))
			if got := bytes.Count(ws.all(), []byte("\n")); got != lines {
				t.Fatalf("size %d: %d lines written on, %d complete", size, got, lines)
			}
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := ws.all(); !bytes.Equal(got, want) {
			t.Errorf("size %d: output differs from line by line", size)
		}
	}
}

// A Write of lines that hold no secret is handed on as it is, in one
// Write; one that does is one Write too.
func TestWriterOneWrite(t *testing.T) {
	files := corpora()
	for _, name := range []string{"nearmiss.jsonl", "secrets.jsonl"} {
		var ws writes
		w := NewWriter(&ws, New())
		w.Write([]byte(files[name]))
		if len(ws.calls) != 1 {
			t.Errorf("%s: %d writes", name, len(ws.calls))
		}
	}
}

// A last line without '\n' is written at Close.
func TestWriterClose(t *testing.T) {
	var ws writes
	w := NewWriter(&ws, New())
	w.Write([]byte(`{"a":"x"}` + "\n" + `{"t":"ghp_FAKEa1b2c3d4e5f6a7b8c9`))
	w.Write([]byte(`d0e1f2a3b4c5d6"}`))
	if got := string(ws.all()); got != `{"a":"x"}`+"\n" {
		t.Fatalf("before Close: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(ws.all()); got != `{"a":"x"}`+"\n"+`{"t":"[REDACTED:github-token]"}` {
		t.Errorf("after Close: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// The first error of the underlying writer is kept and returned.
func TestWriterError(t *testing.T) {
	ws := writes{err: syscall.EPIPE}
	w := NewWriter(&ws, New())
	if _, err := w.Write([]byte("{}\n")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write: %v", err)
	}
	if _, err := w.Write([]byte("{}\n")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("second Write: %v", err)
	}
	if err := w.Close(); !errors.Is(err, syscall.EPIPE) || !errors.Is(w.Err(), syscall.EPIPE) {
		t.Errorf("Close: %v", err)
	}
	ws = writes{err: syscall.EPIPE}
	w = NewWriter(&ws, New())
	w.Write([]byte("{}"))
	if err := w.Close(); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Close with a last line: %v", err)
	}
}

func TestFlagsOutput(t *testing.T) {
	ended := 0
	end := func() error { ended++; return nil }
	var out, errw bytes.Buffer

	// Off: w and end as they are.
	var f Flags
	w, e, err := f.Output("evfilter", &out, end, &errw)
	if err != nil || w != io.Writer(&out) {
		t.Fatalf("without the flags: %v, %T", err, w)
	}
	e()
	if ended != 1 {
		t.Error("end not handed back")
	}

	// On: a Writer; end finishes it, calls the given end, reports.
	f = Flags{Redact: true}
	w, e, err = f.Output("evfilter", &out, end, &errw)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, `{"t":"AKIAFAKE4EXAMPLE7KEY"}`)
	if err := e(); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"t":"[REDACTED:aws-access-key-id]"}` || ended != 2 || errw.String() != "evfilter: redacted 1 aws-access-key-id\n" {
		t.Errorf("out %q, ended %d, stderr %q", out.String(), ended, errw.String())
	}

	// --redact-rules alone turns redaction on; a bad file is an error.
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules")
	os.WriteFile(rules, []byte("ticket\tTICKET-[0-9]{6}\n"), 0o644)
	out.Reset()
	errw.Reset()
	f = Flags{RedactRules: []string{rules}}
	w, e, err = f.Output("zot2gp", &out, end, &errw)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, `{"t":"see TICKET-123456"}`+"\n")
	e()
	if out.String() != `{"t":"see [REDACTED:ticket]"}`+"\n" || errw.String() != "zot2gp: redacted 1 ticket\n" {
		t.Errorf("out %q, stderr %q", out.String(), errw.String())
	}
	f = Flags{RedactRules: []string{filepath.Join(dir, "missing")}}
	if _, _, err := f.Output("zot2gp", &out, end, &errw); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing rules file: %v", err)
	}

	// The reader went away: no report.
	errw.Reset()
	f = Flags{Redact: true}
	w, e, _ = f.Output("evfilter", &writes{err: syscall.EPIPE}, end, &errw)
	io.WriteString(w, `{"t":"AKIAFAKE4EXAMPLE7KEY"}`+"\n")
	e()
	if errw.Len() != 0 {
		t.Errorf("reported after EPIPE: %q", errw.String())
	}
}
