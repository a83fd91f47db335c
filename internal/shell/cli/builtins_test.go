package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc/doctest"
)

type undocumentedOpts struct {
	Good  bool     `help:"Documented."`
	Bad   string   `placeholder:"X"`
	Files []string `arg:"" optional:""`
}

// A flag or an argument without help stops the page from being written.
func TestUndocumented(t *testing.T) {
	err := tooldoc.Undocumented(doctest.Model(t, "t", &undocumentedOpts{}))
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
		code := Run(doctest.Tool, args, Stdio{Out: &out, Err: &stderr}, func(*doctest.Options, Stdio) error { ran = true; return nil })
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
	// --help lists no builtin among the flags, and says in its last line
	// where the manual and the scripts are
	code, help, _ := run("--help")
	flags, last, _ := strings.Cut(help, "\nExamples:")
	if code != 0 || strings.Contains(flags, "completion") || strings.Contains(flags, "--man") {
		t.Errorf("--help lists a builtin flag:\n%s", help)
	}
	if !strings.HasSuffix(last, "\nevtest --man prints the manual page, evtest --completion bash|zsh|fish a completion script.\n") {
		t.Errorf("--help does not end by naming --man and --completion:\n%s", help)
	}
	var out bytes.Buffer
	if err := Parse(doctest.Tool, []string{"--man"}, Stdio{Out: failWriter{}, Err: &out}, &doctest.Options{}); err == nil {
		t.Error("--man to a failing stdout: no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no room") }
