package output_test

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/tools"
)

func tool(t *testing.T, name string) func([]string, cli.Stdio) int {
	for _, tl := range tools.All {
		if tl.Name == name {
			return tl.Main
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// With --redact every tool that writes events stays live: a pipe sees each
// event, redacted, before the next one is written in.
func TestLive(t *testing.T) {
	const secret = "ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
	for _, tc := range []struct {
		tool string
		args []string
		in   func(n int) string
	}{
		{"zot2gp", []string{"--redact"}, func(n int) string {
			return `{"type":"tool_result","id":"c` + strconv.Itoa(n) + `","content":[{"type":"text","text":"TOKEN=` + secret + `"}],"is_error":false}`
		}},
		{"evfilter", []string{"--redact", `kind=="tool_call"`}, func(n int) string {
			return `{"seq":` + strconv.Itoa(n) + `,"kind":"tool_call","payload":{"args":{"command":"export TOKEN=` + secret + `"}}}`
		}},
		{"evcursor", []string{"--redact"}, func(n int) string {
			return `{"seq":` + strconv.Itoa(n) + `,"kind":"tool_call","payload":{"args":{"command":"export TOKEN=` + secret + `"}}}`
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr strings.Builder
			done := make(chan int, 1)
			main := tool(t, tc.tool)
			go func() {
				done <- main(tc.args, cli.Stdio{In: inR, Out: outW, Err: &stderr})
				outW.Close()
			}()
			lines := bufio.NewReader(outR)
			for i := 1; i <= 3; i++ {
				if _, err := io.WriteString(inW, tc.in(i)+"\n"); err != nil {
					t.Fatal(err)
				}
				got := make(chan string, 1)
				go func() { l, _ := lines.ReadString('\n'); got <- l }()
				select {
				case l := <-got:
					if !strings.Contains(l, "TOKEN=[REDACTED:github-token]") || strings.Contains(l, secret) {
						t.Fatalf("event %d: %q", i, l)
					}
				case <-time.After(3 * time.Second): // it takes milliseconds
					t.Fatalf("event %d was not written while %s waits for input", i, tc.tool)
				}
			}
			inW.Close()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d", code)
			}
			if stderr.String() != tc.tool+": redacted 3 github-token\n" {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// A reader that goes away (| head -1) still ends a tool quietly with
// status 0: no count of what it did not deliver.
func TestClosedStdout(t *testing.T) {
	line := `{"seq":1,"kind":"tool_call","payload":{"args":{"command":"export TOKEN=ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"}}}` + "\n"
	for _, args := range [][]string{{"evfilter", "--redact", "true"}, {"evcursor", "--redact"}} {
		outR, outW := io.Pipe()
		outR.Close()
		var stderr strings.Builder
		in := strings.NewReader(strings.Repeat(line, 100000))
		code := tool(t, args[0])(args[1:], cli.Stdio{In: in, Out: outW, Err: &stderr})
		if code != 0 || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", args[0], code, stderr.String())
		}
	}
}
