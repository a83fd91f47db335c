package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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
			b, err := signalMidStream(t, bin, tc.sig, func(stdin io.Writer) error { // re-numbers stdin
				_, err := io.WriteString(stdin, block)
				return err
			})
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Errorf("%v run %d: %v, want exit status %d", tc.sig, run, err, tc.code)
			}
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

// A signal that comes at the very moment the input ends (a process-group
// kill, as systemd sends: the producer dies and the pipe closes with the
// signal) is obeyed like any other (issue 21, item 3): exit 143, no report
// or partial state written, no cursor saved or handed over. Before, the
// tool read the end of its input first and finished as if no signal had
// come: exit 0 and a whole report in 19 of 20 runs.
func TestSignalAtEndOfInput(t *testing.T) {
	events, err := os.ReadFile("../../../examples/events/multiagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	zot, err := os.ReadFile("../../../examples/zot/uname.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	pi := []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-03-08T20:00:00.000Z","cwd":"/w"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-03-08T20:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1772999405000}}
`)
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for _, tc := range []struct {
		name  string
		args  []string
		input []byte
		empty bool // nothing on stdout: the report, state or events come at the end
	}{
		{"evsum md", []string{"evsum", "--format", "md"}, events, true},
		{"evsum partial", []string{"evsum", "--partial"}, events, true},
		{"evsum json", []string{"evsum", "--format", "json"}, events, true},
		{"evcursor state", []string{"evcursor", "--state", "S"}, events, false},
		{"evcursor defer", []string{"evcursor", "--state", "S", "--defer"}, events, false},
		{"evcursor", []string{"evcursor"}, events, false},
		{"evfilter", []string{"evfilter", "--count", "true"}, events, true},
		{"zot2gp", []string{"zot2gp"}, zot, false},
		{"zot2gp pi", []string{"zot2gp", "--format", "pi"}, zot, false},
		{"evimport", []string{"evimport", "-"}, pi, true},
		{"ev2otlp", []string{"ev2otlp"}, events, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, err := exec.LookPath(tc.args[0])
			if err != nil {
				t.Fatal(err)
			}
			zero := 0
			for run := range runs {
				dir := t.TempDir()
				cmd := exec.Command(bin, tc.args[1:]...)
				cmd.Dir = dir
				cmd.Env = append(agentless(os.Environ()), "HOME="+dir)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := os.Create(dir + "/out")
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdout = out
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				stdin.Write(tc.input)
				// Time to read it and wait for more (no assertion rests on
				// it: the signal comes before the end of the input either
				// way), so that the signal meets the end of input.
				time.Sleep(time.Duration(run%4) * 10 * time.Millisecond)
				syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
				stdin.Close()
				err = cmd.Wait()
				out.Close()
				if !endedBySIGTERM(err) {
					zero++
					t.Errorf("run %d: %v (stderr %q), want exit status 143", run, err, stderr.String())
				}
				b, _ := os.ReadFile(dir + "/out")
				if tc.empty && len(b) > 0 {
					t.Errorf("run %d: written after the signal: %.200q", run, b)
				}
				if n := len(b); n > 0 && b[n-1] != '\n' {
					t.Errorf("run %d: output ends inside a line: ...%q", run, b[max(0, n-40):])
				}
				for _, f := range []string{"S", "S.handover"} {
					if _, err := os.Stat(dir + "/" + f); err == nil {
						t.Errorf("run %d: %s saved after the signal", run, f)
					}
				}
			}
			if zero > 0 {
				t.Errorf("%d of %d runs ended otherwise than by the signal", zero, runs)
			}
		})
	}
}

// endedBySIGTERM: exit status 143, or killed by SIGTERM itself, when it
// came before the tool set up its handler (a shell shows 143 for both).
func endedBySIGTERM(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ee.ExitCode() == 143 || ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}

// ev2otlp encodes its lines on a goroutine of its own: a signal still
// ends it between two lines, each a whole TracesData.
func TestSignalEv2otlpFinishesTheLine(t *testing.T) {
	bin, err := exec.LookPath("ev2otlp")
	if err != nil {
		t.Fatal(err)
	}
	run := func(n int) string {
		var b strings.Builder
		for i, k := range []string{`"user_message","payload":{"text":"hi"}`, `"model_call","payload":{"model":"m"}`,
			`"model_result","payload":{"input":5,"output":7,"pad":"` + strings.Repeat("y", 300) + `"}`,
			`"tool_call","payload":{"tool":"bash"}`, `"tool_result","payload":{"tool":"bash","ok":true}`, `"run_finished","payload":{"outcome":"ok"}`} {
			fmt.Fprintf(&b, `{"seq":%d,"ts":%d.5,"run_id":"r_%d","agent_id":"a","kind":%s}`+"\n", n*6+i+1, 1758800000+n, n, k)
		}
		return b.String()
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		n := 0
		b, err := signalMidStream(t, bin, tc.sig, func(stdin io.Writer) error {
			n++
			_, err := io.WriteString(stdin, run(n))
			return err
		})
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Errorf("%v: %v, want exit status %d", tc.sig, err, tc.code)
		}
		if n := len(b); n == 0 || b[n-1] != '\n' {
			t.Fatalf("%v: output ends inside a line: ...%q", tc.sig, b[max(0, n-40):])
		}
		for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if !bytes.HasPrefix(l, []byte(`{"resourceSpans":[`)) || !bytes.HasSuffix(l, []byte(`]}`)) {
				t.Errorf("%v: line %d is not a whole TracesData: %.60q", tc.sig, i+1, l)
				break
			}
		}
	}
}

// signalMidStream starts bin with stdin fed by feed (called again and
// again while the tool takes it), sends sig once 1 MB came out, and
// returns all it wrote and how it ended.
func signalMidStream(t *testing.T, bin string, sig syscall.Signal, feed func(io.Writer) error) ([]byte, error) {
	cmd := exec.Command(bin)
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
		for feed(stdin) == nil {
		}
	}()
	// Handshake: the tool is mid-stream once 1 MB came out.
	var out bytes.Buffer
	if _, err := io.CopyN(&out, stdout, 1<<20); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(sig)
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
		t.Errorf("%v: the tool did not stop within 10 s", sig)
	}
	err = cmd.Wait()
	stdin.Close()
	<-fed
	return out.Bytes(), err
}

// A signal that comes just after the end of the input meets a tool on
// either side of the point where it commits its result (a report, a
// count, a saved cursor): before it, nothing is committed and the status
// is 143; after it, the result is whole and the status is 0. The status
// says what was done, whichever side the signal fell on (issue 30, item
// 18: before, 22 of 61 runs said the other).
func TestSignalAfterEndOfInput(t *testing.T) {
	events, err := os.ReadFile("../../../examples/events/multiagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	runs := 16
	if testing.Short() {
		runs = 4
	}
	for _, tc := range []struct {
		name string
		args []string
		done func(dir string, out []byte) bool // the result is committed
	}{
		{"evcursor state", []string{"evcursor", "--state", "S"}, func(dir string, _ []byte) bool {
			_, err := os.Stat(dir + "/S")
			return err == nil
		}},
		{"evfilter count", []string{"evfilter", "--count", "true"}, func(_ string, out []byte) bool { return len(out) > 0 }},
		{"evsum md", []string{"evsum", "--format", "md"}, func(_ string, out []byte) bool { return len(out) > 0 }},
		{"evimport", []string{"evimport", "-"}, nil},
		{"ev2otlp", []string{"ev2otlp"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, err := exec.LookPath(tc.args[0])
			if err != nil {
				t.Fatal(err)
			}
			input := events
			if tc.args[0] == "evimport" {
				input = []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-03-08T20:00:00.000Z","cwd":"/w"}` + "\n")
			}
			for run := range runs {
				dir := t.TempDir()
				cmd := exec.Command(bin, tc.args[1:]...)
				cmd.Dir = dir
				cmd.Env = append(agentless(os.Environ()), "HOME="+dir)
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				stdin.Write(input)
				time.Sleep(20 * time.Millisecond) // read it all and wait for more
				stdin.Close()
				// 0-3 ms after the end: on either side of the commit.
				time.Sleep(time.Duration(run%4) * time.Millisecond)
				cmd.Process.Signal(syscall.SIGTERM)
				err = cmd.Wait()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				switch {
				case code != 0 && !endedBySIGTERM(err):
					t.Errorf("run %d: %v (stderr %q)", run, err, stderr.String())
				case tc.done == nil:
					// a stream: either status is true to a whole output
				case code == 0 && !tc.done(dir, stdout.Bytes()):
					t.Errorf("run %d: exit 0 without the result (stderr %q)", run, stderr.String())
				case code != 0 && tc.done(dir, stdout.Bytes()):
					t.Errorf("run %d: exit %d with the result committed: %.100q", run, code, stdout.Bytes())
				}
			}
		})
	}
}
