package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT or SIGTERM in the middle of a stream ends a tool between two
// output lines, never inside one, with exit status 130 or 143 (128 + the
// signal), as a shell reports it (item 22).
func TestSignalFinishesTheLine(t *testing.T) {
	bin, err := exec.LookPath("evcursor")
	if err != nil {
		t.Fatal(err)
	}
	line := `{"seq":1,"ts":1758800000.5,"run_id":"r_1","kind":"tool_call","payload":{"pad":"` + strings.Repeat("x", 300) + `"}}` + "\n"
	block := strings.Repeat(line, 200)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		for run := range 3 {
			cmd := exec.Command(bin) // re-numbers stdin
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			fed := make(chan struct{})
			go func() { // input as fast as it is taken, until the tool is gone
				defer close(fed)
				for {
					if _, err := io.WriteString(stdin, block); err != nil {
						return
					}
				}
			}()
			// Handshake: the tool is mid-stream once 1 MB came out.
			var out bytes.Buffer
			if _, err := io.CopyN(&out, stdout, 1<<20); err != nil {
				t.Fatal(err)
			}
			cmd.Process.Signal(tc.sig)
			got := make(chan error, 1)
			go func() {
				_, err := io.Copy(&out, stdout)
				got <- err
			}()
			select {
			case <-got:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-got
				t.Errorf("%v: the tool did not stop within 10 s", tc.sig)
			}
			err = cmd.Wait()
			stdin.Close()
			<-fed
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Errorf("%v run %d: %v, want exit status %d", tc.sig, run, err, tc.code)
			}
			b := out.Bytes()
			if n := len(b); n == 0 || b[n-1] != '\n' {
				t.Errorf("%v run %d: output ends inside a line: ...%q", tc.sig, run, b[max(0, n-40):])
			}
			for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
				if want := fmt.Sprintf(`{"seq":%d,`, i+1); !bytes.HasPrefix(l, []byte(want)) || len(l) != len(line)-1+len(want)-len(`{"seq":1,`) {
					t.Errorf("%v run %d: line %d is not whole: %.60q", tc.sig, run, i+1, l)
					break
				}
			}
		}
	}
}
