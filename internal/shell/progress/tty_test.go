//go:build linux

package progress_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/devtools/ptytest"
	"github.com/evtools/evtools/internal/filters/evcursor"
	"github.com/evtools/evtools/internal/filters/evfilter"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// stepClock moves on by step every time it is read: the tools read it at
// the start and after each read of a file (256 KiB), so a MB makes a run
// of seconds, however fast the machine.
func stepClock(t *testing.T, step time.Duration) {
	var ns atomic.Int64
	progress.SetClock(t, func() time.Time { return time.Unix(1_800_000_000, ns.Add(int64(step))) })
}

// onTerminal runs a tool with stderr (and, with both, stdout) on a new
// pseudo-terminal cols wide, and returns its status and what reached the
// terminal.
func onTerminal(t *testing.T, cols int, both bool, run func(cli.Stdio) int) (int, string) {
	t.Setenv("COLUMNS", "")
	m, s := ptytest.Open(t)
	ptytest.Resize(t, s, cols, 24)
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(m); got <- b }()
	stdio := cli.Stdio{Out: io.Discard, Err: s}
	if both {
		stdio.Out = s
	}
	code := run(stdio)
	s.Close()
	return code, string(<-got)
}

// screen is what a terminal shows after out: the lines ended, then the
// line the cursor is on. It knows \r, \n and ESC [K, which is all the
// progress line uses.
func screen(out string) (lines []string, last string) {
	var cur []byte
	col := 0
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '\r':
			col = 0
		case c == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur = cur[:col]
			i += 2
		case col < len(cur):
			cur[col] = c
			col++
		default:
			cur = append(cur, c)
			col++
		}
	}
	return lines, string(cur)
}

// progressFiles writes two generated logs of the kind of gen, and a file
// with a bad line, into a new folder.
func progressFiles(t *testing.T, gen func(io.Writer, int64, uint64) error) (big1, bad, big2 string) {
	dir := t.TempDir()
	big1, bad, big2 = filepath.Join(dir, "big1.jsonl"), filepath.Join(dir, "bad.jsonl"), filepath.Join(dir, "big2.jsonl")
	for i, p := range []string{big1, big2} {
		var b bytes.Buffer
		if err := gen(&b, 1<<20, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return big1, bad, big2
}

// progressRun is a run of a tool on a long input with a bad line.
type progressRun struct {
	name, run string
	procs     int  // GOMAXPROCS: evfilter reads ahead on several
	both      bool // stdout on the terminal too
	main      func([]string, cli.Stdio) int
	args      []string
}

// testProgress checks that on a terminal each run shows its progress,
// every line fitted to the width, taken off before each message and at
// the end: the screen is left with the messages a run off the terminal
// prints, and nothing else. Off the terminal, nothing but those messages
// is written, whatever the clock says.
func testProgress(t *testing.T, runs []progressRun) {
	stepClock(t, 400*time.Millisecond)
	for _, tt := range runs {
		t.Run(tt.run, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tt.procs))
			// The messages of the run off the terminal.
			var stderr, stdout bytes.Buffer
			want := tt.main(tt.args, cli.Stdio{Out: &stdout, Err: &stderr})
			if strings.ContainsAny(stderr.String(), "\r\x1b") || !strings.Contains(stderr.String(), "bad.jsonl:1:") {
				t.Fatalf("off the terminal, stderr %q", stderr.String())
			}
			msgs := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			if tt.both {
				msgs = append(msgs, strings.TrimSuffix(stdout.String(), "\n"))
			}

			const cols = 60
			code, out := onTerminal(t, cols, tt.both, func(stdio cli.Stdio) int { return tt.main(tt.args, stdio) })
			if code != want {
				t.Errorf("status %d on the terminal, %d off it", code, want)
			}
			draws := regexp.MustCompile("\r([^\r\n\x1b]*)\x1b\\[K").FindAllStringSubmatch(out, -1)
			shape := regexp.MustCompile(`^` + tt.name + `: [0-9.]+ [kMG]?B (of [0-9.]+ [kMG]?B )?\(\d+%\), [0-9.]+ [kMG]?B/s(, \d+s left)?$`)
			shown := 0
			for _, d := range draws {
				switch {
				case d[1] == "": // a clear
				case len(d[1]) >= cols || !shape.MatchString(d[1]):
					t.Errorf("progress line %q (%d columns of %d)", d[1], len(d[1]), cols)
				default:
					shown++
				}
			}
			if shown < 3 {
				t.Errorf("%d progress lines: %q", shown, out)
			}
			if first := strings.Index(out, "\r"+tt.name+": "); first < 0 || first > strings.Index(out, "bad.jsonl:1:") {
				t.Errorf("no progress shown before the bad line's message: %q", out)
			}
			lines, last := screen(out)
			if strings.Join(lines, "\n") != strings.Join(msgs, "\n") || last != "" {
				t.Errorf("the screen shows\n%s\n(cursor line %q), want\n%s", strings.Join(lines, "\n"), last, strings.Join(msgs, "\n"))
			}
		})
	}
}

func TestProgressEvfilter(t *testing.T) {
	big1, bad, big2 := progressFiles(t, corpus.Envelope)
	expr := []string{`kind=="tool_call"`, big1, bad, big2}
	testProgress(t, []progressRun{
		{"evfilter", "parallel", 4, false, evfilter.Main, expr},
		{"evfilter", "serial", 1, false, evfilter.Main, expr},
		{"evfilter", "-c, stdout on the terminal", 4, true, evfilter.Main, append([]string{"-c"}, expr...)},
	})
}

func TestProgressEvcursor(t *testing.T) {
	big1, bad, big2 := progressFiles(t, corpus.Envelope)
	files := []string{big1, bad, big2}
	testProgress(t, []progressRun{
		{"evcursor", "renumber", 1, false, evcursor.Main, files},
		{"evcursor", "--check", 1, false, evcursor.Main, append([]string{"--check"}, files...)},
		{"evcursor", "--after", 1, false, evcursor.Main, append([]string{"--after", "100"}, files...)},
		{"evcursor", "--state", 1, false, evcursor.Main, append([]string{"--state", filepath.Join(t.TempDir(), "s.cursor")}, files...)},
	})
}

func TestProgressZot2gp(t *testing.T) {
	big1, bad, big2 := progressFiles(t, corpus.Zot)
	testProgress(t, []progressRun{
		{"zot2gp", "envelope", 1, false, zot2gp.Main, []string{big1, bad, big2}},
		{"zot2gp", "bare", 1, false, zot2gp.Main, []string{"--format", "bare", big1, bad, big2}},
	})
}

// A short run shows nothing; nor does a run whose stdout is the terminal
// (the events are shown there), or whose input is a pipe.
func TestNoProgress(t *testing.T) {
	env1, _, env2 := progressFiles(t, corpus.Envelope)
	t.Run("short", func(t *testing.T) {
		_, out := onTerminal(t, 80, false, func(stdio cli.Stdio) int {
			return evfilter.Main([]string{"-c", "true", env1}, stdio)
		})
		if out != "" {
			t.Errorf("a short run wrote %q", out)
		}
	})
	stepClock(t, 400*time.Millisecond)
	t.Run("stdout on the terminal", func(t *testing.T) {
		_, out := onTerminal(t, 80, true, func(stdio cli.Stdio) int {
			return evcursor.Main([]string{"--format", "jsonl", env1, env2}, stdio)
		})
		if strings.Contains(out, "\x1b") || !strings.HasSuffix(out, "}\r\n") {
			t.Errorf("wrote more than the events: %q", out[max(len(out)-200, 0):])
		}
	})
	t.Run("pipe", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		go func() {
			defer pw.Close()
			for _, f := range []string{env1, env2} {
				b, _ := os.ReadFile(f)
				pw.Write(b)
			}
		}()
		_, out := onTerminal(t, 80, false, func(stdio cli.Stdio) int {
			stdio.In = pr
			return evcursor.Main(nil, stdio)
		})
		if out != "" {
			t.Errorf("a pipe's progress: %q", out)
		}
	})
}
