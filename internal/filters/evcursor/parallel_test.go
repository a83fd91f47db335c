package evcursor_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/filters/evcursor"
	"github.com/evtools/evtools/internal/shell/cli"
)

// runFiles runs evcursor on files with GOMAXPROCS procs: 1 is the serial
// loop, 2 or more the parallel one.
func runFiles(procs int, args ...string) (stdout, stderr string, code int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var out, errb bytes.Buffer
	code = evcursor.Main(args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// Re-numbering regular files on several cores gives exactly the serial
// loop's output, reports and status: bad lines, bad and repeated seqs,
// events without seq, long lines that bypass the batches, several files.
func TestParallelRenumber(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 900<<10, 11); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	long := `{"seq":7,"kind":"big","payload":{"text":"` + strings.Repeat("x", 300<<10) + `"}}`
	odd := []string{"not json", `{"seq":"x","kind":"a"}`, `{"kind":"no seq"}`, `{"seq":1,"seq":2}`, "[1]",
		`{"s\u0065q":5}`, `{ }`, long, `{"seq":-1}`, "", `{"seq":01}`, `{"seq":3}` + "\r", `{"seq":1e3}`}
	for i := 0; i < len(lines); i += 53 {
		lines[i] = odd[(i/53)%len(odd)]
	}
	dir := t.TempDir()
	var files []string
	for k, part := range [][]string{lines[:len(lines)/3], lines[len(lines)/3:], {long, long}, lines[:10]} {
		p := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", k))
		if err := os.WriteFile(p, []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, args := range [][]string{files, append([]string{"--start", "99999999999999999999"}, files...), files[2:3], files[:1]} {
		so, se, sc := runFiles(1, args...)
		po, pe, pc := runFiles(2, args...)
		if so != po || se != pe || sc != pc {
			t.Errorf("%v: parallel differs: status %d vs %d; stdout equal %v; stderr:\n%s\nvs serial:\n%s", args, pc, sc, so == po, pe, se)
		}
		if len(so) < 1000 {
			t.Errorf("%v: only %d bytes out", args, len(so))
		}
	}
}
