package man

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc/doctest"
)

// The page is the model's: every flag with its help, values and default;
// roff requests in the text escaped; the exit table and the examples as
// the Tool has them.
func TestManPageFromModel(t *testing.T) {
	page := Page(doctest.Tool, doctest.Model(t, doctest.Tool.Name, &doctest.Options{}), "1.2.3")
	for _, want := range []string{
		".TH EVTEST 1 \"\" \"evtools 1.2.3\" \"evtools manual\"\n",
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
		".SH SEE ALSO\n.BR zot2gp (1),\n.BR evfilter (1),\n.BR evcursor (1),\n.BR evsum (1),\n.BR evimport (1),\n.BR ev2otlp (1),\n.BR evtools (7)\n",
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

// A tool's notes add its environment and its pages to see also
// (evfilter's names jq(1)).
func TestManPageNotes(t *testing.T) {
	tool := doctest.Tool
	tool.Name = "evfilter"
	tool.Env = []tooldoc.EnvVar{{Name: "EVTOOLS_FILTERS", Text: "Folders of filters."}}
	tool.SeeAlso = []string{"jq(1)"}
	page := Page(tool, doctest.Model(t, tool.Name, &doctest.Options{}), "1.2.3")
	for _, want := range []string{".SH ENVIRONMENT\n.TP\n.B EVTOOLS_FILTERS\n", ".BR ev2otlp (1),\n.BR evtools (7),\n.BR jq (1)\n"} {
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
