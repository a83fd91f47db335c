// Package man writes a tool's man page, in roff (man(7) macros), from the
// same kong model and tooldoc.Tool as its --help, with the sections a
// reader of man pages looks for: EXIT STATUS, ENVIRONMENT, EXAMPLES and
// SEE ALSO besides the options. `TOOL --man` prints it (package cli).
package man

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
)

// Page is the tool's man page, in roff (man(7) macros), written from
// the same model and Tool as its --help: NAME, SYNOPSIS, DESCRIPTION,
// ARGUMENTS, OPTIONS (every flag --help lists, with its values and
// default), EXIT STATUS, ENVIRONMENT, EXAMPLES and SEE ALSO. version is
// the release the page's footer names.
func Page(t tooldoc.Tool, app *kong.Application, version string) string {
	n := tooldoc.NotesOf(t)
	var b strings.Builder
	line := func(s ...string) {
		for _, l := range s {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	line(`.\" `+t.Name+"(1), written by "+t.Name+" --man from the model of its --help.",
		fmt.Sprintf(`.TH %s 1 "" "evtools %s" "evtools manual"`, strings.ToUpper(t.Name), version),
		".nh", ".ad l") // as --help: no hyphenation, a ragged right

	line(".SH NAME", t.Name+` \- `+roff(nameLine(t.Summary)))

	line(".SH SYNOPSIS", ".B "+t.Name, roffUsage("[flags] "+tooldoc.ArgsUsage(t, app)))

	line(".SH DESCRIPTION")
	writeParagraphs(&b, t.Summary+"\n\n"+strings.TrimSpace(t.Details))

	if len(app.Positional) > 0 {
		line(".SH ARGUMENTS")
		if t.Usage != "" { // one entry: the usage's arguments, as --help does
			line(".TP", roffUsage(tooldoc.ArgsUsage(t, app)), roff(app.Positional[0].Help))
		} else {
			for _, p := range app.Positional {
				line(".TP", `\fI`+roff(p.Name)+`\fR`, roff(p.Help))
			}
		}
	}

	line(".SH OPTIONS")
	for _, f := range tooldoc.VisibleFlags(app) {
		line(".TP", flagTag(f), roff(flagText(app, f, n)))
	}

	if t.Exit != "" {
		line(".SH EXIT STATUS")
		writeExit(&b, t.Exit)
	}

	if len(n.Env) > 0 {
		line(".SH ENVIRONMENT")
		for _, e := range n.Env {
			line(".TP", ".B "+e.Name, roff(e.Text))
		}
	}

	if t.Examples != "" {
		line(".SH EXAMPLES", ".nf")
		for _, l := range strings.Split(strings.Trim(t.Examples, "\n"), "\n") {
			line(roff(l))
		}
		line(".fi")
	}

	line(".SH SEE ALSO")
	var see []string
	for _, other := range tooldoc.Commands {
		if other != t.Name {
			see = append(see, other+"(1)")
		}
	}
	see = append(see, "evtools(7)")
	see = append(see, n.SeeAlso...)
	for i, s := range see {
		name, sec, _ := strings.Cut(strings.TrimSuffix(s, ")"), "(")
		comma := ","
		if i == len(see)-1 {
			comma = ""
		}
		line(".BR " + roff(name) + " (" + sec + ")" + comma)
	}
	line(".PP",
		roff("evtools(7) also says how every tool prints its completion script (--completion bash, zsh or fish) and this page (--man)."),
		roff("docs/"+t.Name+".md, in the release archive and in the source tree, has the whole story, with sessions that the tests run."))
	return b.String()
}

// nameLine is the summary as the NAME line has it: no final period, a
// first capital lowered unless the word is all capitals.
func nameLine(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' {
		s = string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

// flagTag is the flag's entry as --help's first column has it: short
// flag, long flag, value.
func flagTag(f *kong.Flag) string {
	var s string
	if f.Short != 0 {
		s = `\fB\-` + roff(string(f.Short)) + `\fR, `
	}
	s += `\fB\-\-` + roff(f.Name) + `\fR`
	if tooldoc.TakesValue(f) {
		p := tooldoc.Placeholder(f)
		if strings.Contains(p, " ") {
			s += " " + roffUsage(p)
		} else {
			s += `=\fI` + roff(p) + `\fR`
		}
	}
	return s
}

// flagText is a flag's help as --help has it, then its values and its
// default where the help does not name them.
func flagText(app *kong.Application, f *kong.Flag, n tooldoc.Notes) string {
	s := tooldoc.HelpText(app, f)
	vals := tooldoc.FlagValues(f, n)
	if len(vals.Words) > 0 && vals.Kind != tooldoc.NoValues && !namesAll(s, vals.Words) {
		sep := ", "
		what := "One of"
		if vals.Kind == tooldoc.ListOf {
			what = "Comma-separated words of"
		}
		s += " " + what + ": " + strings.Join(vals.Words, sep) + "."
	}
	if f.HasDefault && f.Default != "" && !strings.Contains(strings.ToLower(s), "default") {
		s += " Default: " + f.Default + "."
	}
	return s
}

// namesAll reports whether text has each word as a word of its own; a
// word that is another with a - before it (evsum --sort -cost_usd) is
// named with it.
func namesAll(text string, words []string) bool {
	for _, w := range words {
		if d, ok := strings.CutPrefix(w, "-"); ok && slices.Contains(words, d) {
			continue
		}
		if !regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(w) + `($|[^\w-])`).MatchString(text) {
			return false
		}
	}
	return true
}

// writeParagraphs writes text whose paragraphs are separated by blank
// lines; a paragraph whose lines are all indented is kept as it is.
func writeParagraphs(b *strings.Builder, text string) {
	for i, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		p = strings.Trim(p, "\n")
		if p == "" {
			continue
		}
		if i > 0 {
			b.WriteString(".PP\n")
		}
		lines := strings.Split(p, "\n")
		literal := !slices.ContainsFunc(lines, func(l string) bool { return !strings.HasPrefix(l, " ") })
		if literal {
			b.WriteString(".RS 4\n.nf\n")
		}
		for _, l := range lines {
			if !literal {
				l = strings.TrimSpace(l)
			}
			b.WriteString(roff(l) + "\n")
		}
		if literal {
			b.WriteString(".fi\n.RE\n")
		}
	}
}

// exitItem is "0  what it means", "130, 143  what they mean".
var exitItem = regexp.MustCompile(`^([0-9]+(?:, *[0-9]+)*)  +(.*)$`)

// writeExit writes the Exit text of a Tool: a table of statuses, whose
// lines that go on are indented, and sentences between them.
func writeExit(b *strings.Builder, text string) {
	prose := false // the line before was a sentence's
	for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
		m := exitItem.FindStringSubmatch(l)
		switch {
		case m != nil:
			b.WriteString(".TP\n.B " + roff(m[1]) + "\n" + roff(m[2]) + "\n")
		case strings.TrimSpace(l) == "":
			b.WriteString(".PP\n")
		case strings.HasPrefix(l, " ") || prose:
			b.WriteString(roff(strings.TrimSpace(l)) + "\n")
		default:
			b.WriteString(".PP\n" + roff(l) + "\n")
		}
		prose = m == nil && !strings.HasPrefix(l, " ") && strings.TrimSpace(l) != ""
	}
}

// roff escapes text for roff: a backslash is \e, every hyphen \- (so that
// flags copied from the page are the ASCII ones), and a line that starts
// with a dot or a quote (a request) starts with \& instead.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// roffUsage writes a usage (flags, EXPR [FILE ...]) with its words in
// italics and the brackets and dots upright.
func roffUsage(s string) string {
	return tooldoc.UsageWord.ReplaceAllStringFunc(roff(s), func(w string) string { return `\fI` + w + `\fR` })
}
