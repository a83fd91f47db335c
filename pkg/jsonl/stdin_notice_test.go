package jsonl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/ptytest"
)

// With no file named and a terminal on standard input, a tool says once
// that it reads the terminal and how to end it, instead of waiting in
// silence; a pipe or a named file gets no such line.
func TestStdinNotice(t *testing.T) {
	master, slave := ptytest.Open(t)
	var stderr bytes.Buffer
	in := &Input{Tool: "evtool", Stdin: slave, Stderr: &stderr}
	done := make(chan error)
	var got []string
	go func() {
		done <- in.Each(func(r Record) error {
			got = append(got, string(r.Data))
			return nil
		})
	}()
	master.Write([]byte("{\"seq\":1}\n\x04")) // a line, then Ctrl-D
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-D did not end the input")
	}
	want := "evtool: reading the terminal (stdin); end it with Ctrl-D, or name a FILE\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if len(got) != 1 || got[0] != `{"seq":1}` {
		t.Errorf("records %q", got)
	}

	stderr.Reset()
	quiet := &Input{Tool: "evtool", Stdin: strings.NewReader("{}\n"), Stderr: &stderr}
	quiet.Each(func(Record) error { return nil })
	if stderr.Len() != 0 {
		t.Errorf("a reader that is no terminal got %q", stderr.String())
	}
}
