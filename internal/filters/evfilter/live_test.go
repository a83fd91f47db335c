package evfilter_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/filters/evfilter"
	"github.com/evtools/evtools/internal/shell/cli"
)

// A live pipe sees each selected event before the next one is written in,
// on the fast path and on gojq's.
func TestLivePipe(t *testing.T) {
	for _, expr := range []string{`kind=="tool_call"`, `payload.tool | test("ba")`} {
		t.Run(expr, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan int, 1)
			go func() {
				done <- evfilter.Main([]string{expr}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
				outW.Close()
			}()
			lines := bufio.NewReader(outR)
			for i := 1; i <= 3; i++ {
				skip := `{"kind":"other","payload":{"tool":"x"}}` + "\n"
				rec := `{"kind":"tool_call","payload":{"tool":"bash"},"n":` + strings.Repeat("1", i) + `}`
				if _, err := io.WriteString(inW, skip+rec+"\n"); err != nil {
					t.Fatal(err)
				}
				got := make(chan string, 1)
				go func() { l, _ := lines.ReadString('\n'); got <- l }()
				select {
				case l := <-got:
					if l != rec+"\n" {
						t.Fatalf("event %d: got %q, want %q", i, l, rec)
					}
				case <-time.After(3 * time.Second): // it takes milliseconds
					t.Fatalf("event %d was not written while evfilter waits for input", i)
				}
			}
			inW.Close()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// "-" is stdin even when the working directory has a file named "-": a
// live pipe given as "-" still sees each selected event at once, on every
// core count, instead of waiting for batches read ahead of it.
func TestLiveDashIsStdin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel on any machine
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "-"), []byte(`{"kind":"tool_call","file":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- evfilter.Main([]string{`kind=="tool_call"`, "-"}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	rec := `{"kind":"tool_call","n":1}`
	if _, err := io.WriteString(inW, rec+"\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() { l, _ := lines.ReadString('\n'); got <- l }()
	select {
	case l := <-got:
		if l != rec+"\n" {
			t.Fatalf("got %q, want %q from stdin", l, rec)
		}
	case <-time.After(3 * time.Second): // it takes milliseconds
		t.Fatal("the event was not written while evfilter waits for input")
	}
	inW.Close()
	if rest, _ := io.ReadAll(lines); len(rest) > 0 {
		t.Errorf("more output: %q", rest)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A reader that goes away (| head -1) ends evfilter quietly with status 0.
func TestClosedStdout(t *testing.T) {
	outR, outW := io.Pipe()
	outR.Close()
	var stderr strings.Builder
	in := strings.NewReader(strings.Repeat(`{"kind":"tool_call"}`+"\n", 200000))
	code := evfilter.Main([]string{`kind=="tool_call"`}, cli.Stdio{In: in, Out: outW, Err: &stderr})
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
	if in.Len() == 0 {
		t.Fatal("read the whole input after stdout closed")
	}
}
