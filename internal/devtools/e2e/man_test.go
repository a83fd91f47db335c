package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/tools"
)

// need returns the path of program, which a test cannot do without. When
// it is missing the test is skipped, but not in CI (CI set), where .ci/run
// installs it from Debian (package pkg): there the test fails.
func need(t *testing.T, program, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("%s is not installed (CI installs %s: .ci/run)", program, pkg)
		}
		t.Fatalf("%s is not installed, and CI is set: .ci/run should have installed %s", program, pkg)
	}
	return p
}

// output runs a tool in the test's process (what it prints about itself
// needs no process of its own) and returns its stdout.
func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	for _, tool := range tools.All {
		if tool.Name == name {
			var out, stderr bytes.Buffer
			if code := tool.Main(args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &stderr}); code != 0 || stderr.Len() > 0 {
				t.Fatalf("%s %s: status %d\n%s", name, strings.Join(args, " "), code, stderr.String())
			}
			return out.String()
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

// render is a man page as man shows it to a reader 80 columns wide, with
// groff's warnings on: there must be none.
func render(t *testing.T, page []byte) string {
	t.Helper()
	man := need(t, "man", "man-db")
	f := filepath.Join(t.TempDir(), "page")
	if err := os.WriteFile(f, page, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(man, "--warnings", "-l", f)
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8", "MAN_KEEP_FORMATTING=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("MANWIDTH=80 man --warnings -l: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// words is text with every run of white space one space.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// section is the text of a man page's section (as rendered) or of a help
// block ("Examples:"), up to the next one.
func section(text, heading string) string {
	_, rest, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	if i := regexp.MustCompile(`\n[A-Z][A-Za-z ]*:?\n`).FindStringIndex(rest); i != nil {
		rest = rest[:i[0]]
	}
	// a section's lines are indented: an unindented paragraph after it
	// (--help's last line, on --man and --completion) is not of it
	if i := regexp.MustCompile(`\n\n[^ \n]`).FindStringIndex(rest); i != nil {
		rest = rest[:i[0]]
	}
	return rest + "\n"
}

// helpFlag is a flag entry of --help: "--format=FORMAT" and its text.
type helpFlag struct{ name, tag, text string }

// helpFlags reads the Flags section of a --help.
func helpFlags(help string) []helpFlag {
	var out []helpFlag
	entry := regexp.MustCompile(`^  (?:-\w, )?\s*(--[a-z-]+)(\S*(?: [A-Z]+ [A-Z]+)?)\s+(.*)$`)
	for _, l := range strings.Split(section(help, "Flags:"), "\n") {
		if m := entry.FindStringSubmatch(l); m != nil {
			out = append(out, helpFlag{m[1], m[1] + m[2], m[3]})
		} else if len(out) > 0 && strings.TrimSpace(l) != "" {
			out[len(out)-1].text += " " + strings.TrimSpace(l)
		}
	}
	return out
}

// Each tool's man page says what its --help says, as it is written from
// the same model: every flag with the same text, the same examples and
// exit statuses, the same description; its sections are all there, and
// man renders it without a warning. Every flag is also told of in docs/.
func TestManPages(t *testing.T) {
	// every page of docs/: a flag may be told of on a page of its own
	// (docs/redaction.md) as well as on its tool's
	pages, _ := filepath.Glob("../../../docs/*.md")
	var docs []byte
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b...)
	}
	for _, tool := range tools.All {
		t.Run(tool.Name, func(t *testing.T) {
			page := output(t, tool.Name, "--man")
			help := output(t, tool.Name, "--help")
			text := render(t, []byte(page))
			for _, s := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "ARGUMENTS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES", "SEE ALSO"} {
				if section(text, s) == "" {
					t.Errorf("no %s section:\n%s", s, text)
				}
			}
			flags := helpFlags(help)
			if len(flags) < 5 {
				t.Fatalf("read %d flags from --help:\n%s", len(flags), help)
			}
			options := words(section(text, "OPTIONS"))
			for _, f := range flags {
				if !strings.Contains(options, f.tag+" "+words(f.text)) {
					t.Errorf("OPTIONS lacks %s as --help has it: %q", f.tag, words(f.text))
				}
				if f.name != "--help" && f.name != "--version" && !regexp.MustCompile(regexp.QuoteMeta(f.name)+`\b`).Match(docs) {
					t.Errorf("no page of docs/ documents %s's %s (its place is docs/%s.md)", tool.Name, f.name, tool.Name)
				}
			}
			if got, want := lines(section(text, "EXAMPLES")), lines(section(help, "Examples:")); !equal(got, want) {
				t.Errorf("EXAMPLES:\n%s\nwant --help's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got, want := words(section(text, "EXIT STATUS")), words(section(help, "Exit status:")); got != want {
				t.Errorf("EXIT STATUS:\n%s\nwant --help's:\n%s", got, want)
			}
			// the description: the paragraphs between the usage line and Arguments:
			desc := help[strings.Index(help, "\n"):strings.Index(help, "\nArguments:\n")]
			if got := words(section(text, "DESCRIPTION")); got != words(desc) {
				t.Errorf("DESCRIPTION:\n%s\nwant --help's:\n%s", got, words(desc))
			}
			usage := strings.TrimPrefix(strings.SplitN(help, "\n", 2)[0], "Usage: ")
			if syn := words(section(text, "SYNOPSIS")); syn != usage && syn != strings.Replace(usage, "[<FILE> ...] [flags]", "[flags] [FILE ...]", 1) {
				t.Errorf("SYNOPSIS %q, usage %q", syn, usage)
			}
		})
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// evtools(7) renders without a warning, and names every tool, every zot
// type and every kind of a run log that docs/formats.md lists.
func TestManEvtools7(t *testing.T) {
	page, err := os.ReadFile("../../../man/evtools.7")
	if err != nil {
		t.Fatal(err)
	}
	text := render(t, page)
	formats, err := os.ReadFile("../../../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, table := range []string{"| zot `type` | fields | what it means |", "| kind | payload fields | when |"} {
		_, rest, _ := strings.Cut(string(formats), table)
		for _, row := range strings.Split(rest, "\n")[2:] {
			m := regexp.MustCompile("^\\| `([a-z_]+)`").FindStringSubmatch(row)
			if m == nil {
				break
			}
			names = append(names, m[1])
		}
	}
	if len(names) < 25 {
		t.Fatalf("read %d names from docs/formats.md: %q", len(names), names)
	}
	for _, tool := range tools.All {
		names = append(names, tool.Name+"(1)")
	}
	for _, n := range names {
		if !regexp.MustCompile(`(^|[^\w])` + regexp.QuoteMeta(n) + `($|[^\w])`).MatchString(text) {
			t.Errorf("evtools(7) does not name %s", n)
		}
	}
}
