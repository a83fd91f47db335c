package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type manOpts struct {
	Mode  string   `enum:"fast,slow" default:"fast" placeholder:"MODE" help:"How to go."`
	Out   string   `short:"o" placeholder:"FILE" help:"Write to FILE (default: stdout)."`
	Pair  []string `name:"pair" placeholder:"NAME VALUE" help:"Bind NAME to VALUE."`
	A     bool     `short:"a" xor:"m" help:"Mode a."`
	B     bool     `xor:"m" help:"Mode b; a\\b."`
	Files []string `arg:"" optional:"" name:"FILE" help:"Inputs."`
	Terminal
}

var manTool = Tool{
	Name:    "evtest",
	Summary: "Test the pages.",
	Details: `
.kind at the start of a line
is not a request, nor is
'quoted; a back\slash stays.

  an indented block
  stays as it is`,
	Examples: `
evtest -o out in            # a comment
.hidden -x`,
	Exit: `
0  fine
2  bad
   input
A note that
goes on.
130, 143  stopped`,
}

func model(t *testing.T, tool Tool, opts any) *kong.Application {
	t.Helper()
	var b builtins
	p, err := kong.New(opts, kong.Embed(&b), kong.Name(tool.Name))
	if err != nil {
		t.Fatal(err)
	}
	return p.Model
}

// The page is the model's: every flag with its help, values and default;
// roff requests in the text escaped; the exit table and the examples as
// the Tool has them.
func TestManPageFromModel(t *testing.T) {
	page := ManPage(manTool, model(t, manTool, &manOpts{}))
	for _, want := range []string{
		".TH EVTEST 1 ",
		".SH NAME\nevtest \\- test the pages\n",
		".SH SYNOPSIS\n.B evtest\n[\\fIflags\\fR] [\\fIFILE\\fR ...]\n",
		"\n\\&.kind at the start of a line\n",
		"\n\\&'quoted; a back\\eslash stays.\n",
		".RS 4\n.nf\n  an indented block\n  stays as it is\n.fi\n.RE\n",
		".TP\n\\fB\\-\\-mode\\fR=\\fIMODE\\fR\nHow to go. One of: fast, slow. Default: fast.\n",
		".TP\n\\fB\\-o\\fR, \\fB\\-\\-out\\fR=\\fIFILE\\fR\nWrite to FILE (default: stdout).\n",
		".TP\n\\fB\\-\\-pair\\fR \\fINAME\\fR \\fIVALUE\\fR\nBind NAME to VALUE.\n",
		"Mode b; a\\eb.\n",
		".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow this help and exit.\n",
		"auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never. Default: auto.\n",
		".SH ARGUMENTS\n.TP\n\\fIFILE\\fR\nInputs.\n",
		".SH EXIT STATUS\n.TP\n.B 0\nfine\n.TP\n.B 2\nbad\ninput\n.PP\nA note that\ngoes on.\n.TP\n.B 130, 143\nstopped\n",
		".SH EXAMPLES\n.nf\nevtest \\-o out in            # a comment\n\\&.hidden \\-x\n.fi\n",
		".SH SEE ALSO\n.BR zot2gp (1),\n.BR evfilter (1),\n.BR evcursor (1),\n.BR evsum (1),\n.BR evtools (7)\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{"completion", "\\-\\-man", "ENVIRONMENT"} {
		if strings.Contains(strings.SplitN(page, ".SH SEE ALSO", 2)[0], bad) {
			t.Errorf("the page has %q before SEE ALSO:\n%s", bad, page)
		}
	}
	renderMan(t, page)
}

// A tool's notes add its environment; evfilter's page names jq(1).
func TestManPageNotes(t *testing.T) {
	tool := manTool
	tool.Name = "evfilter"
	page := ManPage(tool, model(t, tool, &manOpts{}))
	for _, want := range []string{".SH ENVIRONMENT\n.TP\n.B EVTOOLS_FILTERS\n", ".BR evsum (1),\n.BR evtools (7),\n.BR jq (1)\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("evfilter's page lacks %q", want)
		}
	}
	if strings.Contains(page, ".BR evfilter (1)") {
		t.Error("evfilter's page sees also itself")
	}
}

// renderMan renders a page as man does for a reader, with groff's
// warnings on: there must be none. Without man the test is skipped, but
// not in CI, where .ci/run installs man-db.
func renderMan(t *testing.T, page string) string {
	t.Helper()
	if _, err := exec.LookPath("man"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("man is not installed (CI installs man-db: .ci/run)")
		}
		t.Fatal("man is not installed, and CI is set: .ci/run should have installed man-db")
	}
	f := filepath.Join(t.TempDir(), "page.1")
	if err := os.WriteFile(f, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "--warnings", "-l", f)
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("man --warnings -l: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

type undocumentedOpts struct {
	Good  bool     `help:"Documented."`
	Bad   string   `placeholder:"X"`
	Files []string `arg:"" optional:""`
}

// A flag or an argument without help stops the page from being written.
func TestUndocumented(t *testing.T) {
	err := Undocumented(model(t, Tool{Name: "t"}, &undocumentedOpts{}))
	if err == nil || !strings.Contains(err.Error(), "--bad has no help text") || !strings.Contains(err.Error(), "argument files has no help text") ||
		strings.Contains(err.Error(), "good") {
		t.Errorf("got %v; want --bad and files named, and only them", err)
	}
	var out, stderr bytes.Buffer
	code := Run(Tool{Name: "t"}, []string{"--man"}, Stdio{Out: &out, Err: &stderr}, func(*undocumentedOpts, Stdio) error { return nil })
	if code != ExitError || out.Len() > 0 || !strings.Contains(stderr.String(), "t: --bad has no help text\n") {
		t.Errorf("--man with an undocumented flag: status %d, stdout %q, stderr %q", code, out.String(), stderr.String())
	}
}

// --man and --completion print and end the run with 0; --help does not
// list them; a shell that is not known is a usage error.
func TestBuiltinFlags(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, stderr bytes.Buffer
		ran := false
		code := Run(manTool, args, Stdio{Out: &out, Err: &stderr}, func(*manOpts, Stdio) error { ran = true; return nil })
		if ran {
			t.Errorf("%q: the tool ran", args)
		}
		return code, out.String(), stderr.String()
	}
	if code, out, _ := run("--man"); code != 0 || !strings.HasPrefix(out, `.\" evtest(1)`) {
		t.Errorf("--man: status %d, %.40q", code, out)
	}
	for shell, start := range map[string]string{"bash": "# bash completion for evtest", "zsh": "#compdef evtest\n", "fish": "# fish completion for evtest"} {
		if code, out, _ := run("--completion", shell); code != 0 || !strings.HasPrefix(out, start) {
			t.Errorf("--completion %s: status %d, %.40q", shell, code, out)
		}
	}
	if code, _, stderr := run("--completion", "tcsh"); code != ExitError || !strings.Contains(stderr, `--completion "tcsh": one of bash, zsh, fish`) {
		t.Errorf("--completion tcsh: status %d, %q", code, stderr)
	}
	if code, out, _ := run("--help"); code != 0 || strings.Contains(out, "completion") || strings.Contains(out, "--man") {
		t.Errorf("--help lists a builtin flag:\n%s", out)
	}
	var out bytes.Buffer
	if err := Parse(manTool, []string{"--man"}, Stdio{Out: failWriter{}, Err: &out}, &manOpts{}); err == nil {
		t.Error("--man to a failing stdout: no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no room") }

func TestNameLine(t *testing.T) {
	for in, want := range map[string]string{
		"Keep the events.": "keep the events",
		"JSON out.":        "JSON out",
		"a":                "a",
	} {
		if got := nameLine(in); got != want {
			t.Errorf("nameLine(%q) = %q, want %q", in, got, want)
		}
	}
}
