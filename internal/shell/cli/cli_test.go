package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/google/go-cmp/cmp"
)

type opts struct {
	Count int      `short:"n" help:"How many."`
	Files []string `arg:"" optional:""`
}

var tool = Tool{
	Name:     "evx",
	Summary:  "Does x to events.",
	Examples: "evx -n 3 events.jsonl",
	Exit:     "0  fine\n2  an error",
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		done     bool
		out, err string // substrings
		tool     Tool   // the default: tool
	}{
		{name: "ok", args: []string{"-n", "2", "a"}},
		{name: "help shows examples and exit status", args: []string{"--help"}, done: true,
			out: "Examples:\n  evx -n 3 events.jsonl\n\nExit status:\n  0  fine\n  2  an error"},
		{name: "help shows the details after the summary", args: []string{"--help"}, done: true,
			tool: Tool{Name: "evx", Summary: "Does x to events.", Details: "\nEXPR is jq.\n"},
			out:  "Does x to events.\n\nEXPR is jq.\n"},
		{name: "version", args: []string{"--version"}, done: true, out: "evx " + Version},
		{name: "usage error once with the tool's name", args: []string{"--bogus"}, code: ExitError, done: true,
			err: "evx: unknown flag --bogus\nevx: run 'evx --help' for usage\n"},
		{name: "bad value", args: []string{"-n", "x"}, code: ExitError, done: true, err: "evx: --count:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			var o opts
			tl := tool
			if tt.tool.Name != "" {
				tl = tt.tool
			}
			err := Parse(tl, tt.args, Stdio{Out: &out, Err: &errb}, &o)
			code, done := Report(tool.Name, &errb, err), err != nil
			if code != tt.code || done != tt.done {
				t.Fatalf("Parse = %d, %v; want %d, %v (stderr %q)", code, done, tt.code, tt.done, errb.String())
			}
			if !strings.Contains(out.String(), tt.out) {
				t.Errorf("stdout %q does not contain %q", out.String(), tt.out)
			}
			if !strings.Contains(errb.String(), tt.err) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tt.err)
			}
			if !done && (o.Count != 2 || len(o.Files) != 1) {
				t.Errorf("options not filled: %+v", o)
			}
		})
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		say  string
	}{
		{"success", nil, ExitOK, ""},
		{"a plain error", errors.New("plain"), ExitError, "evx: plain\n"},
		{"an error with its code", Errorf(ExitBusy, "state file is locked"), ExitBusy, "evx: state file is locked\n"},
		{"wrapped, it keeps its code", fmt.Errorf("run: %w", Errorf(ExitBusy, "locked")), ExitBusy, "evx: run: locked\n"},
		{"a status says nothing", Status(ExitFound), ExitFound, ""},
		{"--strict reported the line", fmt.Errorf("x: %w", jsonl.ErrStrict), ExitError, ""},
		{"the reader went away", fmt.Errorf("writing: %w", syscall.EPIPE), ExitOK, ""},
		{"a usage error points to --help", Usage(errors.New("unknown flag --x")), ExitError,
			"evx: unknown flag --x\nevx: run 'evx --help' for usage\n"},
		{"joined errors, a line each", errors.Join(errors.New("one"), Status(ExitFound), errors.New("two")), ExitFound,
			"evx: one\nevx: two\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if code := Report("evx", &b, tt.err); code != tt.code {
			t.Errorf("%s: code %d, want %d", tt.name, code, tt.code)
		}
		if b.String() != tt.say {
			t.Errorf("%s: printed %q, want %q", tt.name, b.String(), tt.say)
		}
	}
}

type listOpts struct {
	Count bool     `short:"c"`
	Max   int      `short:"m"`
	By    string   `name:"by"`
	Args  []string `arg:"" optional:""`
}

// `tool EXPR -- FILE` is EXPR then FILE, as with grep; flags and their
// values before the "--" stay flags, and what follows it is never a flag.
// Flags may come between the files, as with GNU tools, the files keeping
// their order.
func TestDashDash(t *testing.T) {
	tests := []struct {
		args []string
		want listOpts
	}{
		{[]string{"x", "--", "f"}, listOpts{Args: []string{"x", "f"}}},
		{[]string{"--", "x", "-f"}, listOpts{Args: []string{"x", "-f"}}},
		{[]string{"-c", "x", "--", "-f", "--by"}, listOpts{Count: true, Args: []string{"x", "-f", "--by"}}},
		{[]string{"--by", "day", "x", "--", "y"}, listOpts{By: "day", Args: []string{"x", "y"}}},
		{[]string{"x", "--by=day", "-m", "3", "--", "y"}, listOpts{By: "day", Max: 3, Args: []string{"x", "y"}}},
		{[]string{"-cm", "4", "x", "--", "y"}, listOpts{Count: true, Max: 4, Args: []string{"x", "y"}}},
		{[]string{"-m5", "x", "--", "-"}, listOpts{Max: 5, Args: []string{"x", "-"}}},
		{[]string{"x", "y"}, listOpts{Args: []string{"x", "y"}}},
		{[]string{"x", "--by", "day", "y", "-c", "z"}, listOpts{By: "day", Count: true, Args: []string{"x", "y", "z"}}},
		{[]string{"x", "-m", "-1", "-", "--by=-cost", "y"}, listOpts{Max: -1, By: "-cost", Args: []string{"x", "-", "y"}}},
		{[]string{"x", "-cm", "2", "y", "--", "-z"}, listOpts{Count: true, Max: 2, Args: []string{"x", "y", "-z"}}},
	}
	for _, tt := range tests {
		var o listOpts
		var errb bytes.Buffer
		if err := Parse(Tool{Name: "evx"}, tt.args, Stdio{Out: &bytes.Buffer{}, Err: &errb}, &o); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, o); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, diff)
		}
	}
}

// A flag that takes a value, last with nothing after it, is a usage
// error, as kong says it: it never takes a file for its value.
func TestDanglingFlagTakesNoFile(t *testing.T) {
	for _, args := range [][]string{
		{"x", "--by"},
		{"x", "y", "-m"},
		{"x", "-cm"},
		{"x", "--by", "--", "y"},
	} {
		var o listOpts
		err := Parse(Tool{Name: "evx"}, args, Stdio{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, &o)
		if err == nil {
			t.Errorf("%q: no error: by %q, max %d, args %q", args, o.By, o.Max, o.Args)
		}
	}
}

// A message carries data and file names escaped even when stderr is a
// file, not a terminal: a cron log read later with cat must not replay an
// escape sequence (OSC 52 sets the clipboard) from an event or a name.
func TestRunEscapesMessagesInAFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := Run(tool, []string{"a"}, Stdio{Out: io.Discard, Err: f}, func(_ *opts, stdio Stdio) error {
		fmt.Fprintf(stdio.Err, "evx: warning: model %s\n", "m\x1b]0;title\x07")
		return fmt.Errorf("%s: no such file", "x\x1b]52;c;aGk=\x07.jsonl")
	})
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	got, _ := os.ReadFile(f.Name())
	want := `evx: warning: model m\u001b]0;title\u0007` + "\n" + `evx: x\u001b]52;c;aGk=\u0007.jsonl: no such file` + "\n"
	if string(got) != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
