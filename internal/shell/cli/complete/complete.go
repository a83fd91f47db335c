// Package complete writes a tool's completion scripts for bash, zsh and
// fish from the same kong model and tooldoc.Tool as its --help. `TOOL
// --completion SHELL` prints them (package cli).
package complete

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
)

// The completion scripts are written from the same kong model as --help:
// every flag --help lists, the values of those that take one (an enum,
// the notes of package tooldoc, files for a FILE), and what the arguments
// are (files; evfilter's first one is its expression, completed with the
// named filters that `evfilter --list` prints when Tab is pressed, so that
// the filters of EVTOOLS_FILTERS count). A script is static but for that
// call: completing costs no process otherwise.

// compFlag is a flag as the scripts see it.
type compFlag struct {
	long   string
	short  rune
	args   int // the words of its value: 0, 1, or 2 (--arg NAME VALUE)
	values tooldoc.ValueSpec
	holder []string // the placeholder's words (FORMAT; NAME VALUE)
	desc   string
	repeat bool
	excl   []string // the flags it cannot go with (xor), itself included
	alone  bool     // --help, --version: nothing goes with them
}

// compModel is a tool's command line as the scripts see it.
type compModel struct {
	name        string
	flags       []compFlag
	first, rest tooldoc.ValueSpec // the first argument, the others
	restName    string            // the others' placeholder (FILE)
	firstName   string
	firstUnless []string // long names of the flags that make the first argument one of the rest
}

func newCompModel(t tooldoc.Tool, app *kong.Application) compModel {
	n := tooldoc.NotesOf(t)
	m := compModel{name: t.Name, rest: tooldoc.ValueSpec{Kind: tooldoc.FileValues}, restName: "FILE", firstUnless: n.FirstUnless}
	if len(app.Positional) > 0 {
		// "EXPR [FILE]" is the expression, then files
		words := tooldoc.UsageWord.FindAllString(app.Positional[0].Name, -1)
		m.restName = words[len(words)-1]
		m.firstName = words[0]
	}
	m.first = m.rest
	if n.First.Kind != tooldoc.NoValues {
		m.first = n.First
	}
	xor := map[string][]string{}
	for _, f := range tooldoc.VisibleFlags(app) {
		for _, x := range f.Xor {
			xor[x] = append(xor[x], f.Name)
		}
	}
	for _, f := range tooldoc.VisibleFlags(app) {
		c := compFlag{long: f.Name, short: f.Short, values: tooldoc.FlagValues(f, n), desc: shortHelp(tooldoc.HelpText(app, f)),
			repeat: f.IsCumulative(), alone: f == app.HelpFlag || f.Name == "version"}
		if tooldoc.TakesValue(f) {
			c.holder = strings.Fields(tooldoc.Placeholder(f))
			c.args = len(c.holder)
		}
		if !c.repeat {
			c.excl = []string{f.Name}
		}
		for _, x := range f.Xor {
			for _, o := range xor[x] {
				if !slices.Contains(c.excl, o) {
					c.excl = append(c.excl, o)
				}
			}
		}
		m.flags = append(m.flags, c)
	}
	for _, name := range slices.Sorted(maps.Keys(n.Values)) {
		if !slices.ContainsFunc(m.flags, func(c compFlag) bool { return c.long == name }) {
			panic(fmt.Sprintf("complete: the notes of %s name --%s, which it does not have", t.Name, name))
		}
	}
	return m
}

var parenthesis = regexp.MustCompile(`\s*\([^()]*\)`)

// shortHelp is the first sentence of a help text, without what it says in
// parentheses, cut to a line: what a shell shows beside a flag.
func shortHelp(s string) string {
	s = parenthesis.ReplaceAllString(s, "")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	const max = 64
	if utf8.RuneCountInString(s) > max {
		cut := string([]rune(s)[:max])
		if i := strings.LastIndex(cut, " "); i > 0 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, ",:;") + "..."
	}
	return s
}

// Script is the tool's completion script for shell: bash, zsh or fish.
func Script(shell string, t tooldoc.Tool, app *kong.Application) (string, error) {
	m := newCompModel(t, app)
	switch shell {
	case "bash":
		return m.bash(), nil
	case "zsh":
		return m.zsh(), nil
	case "fish":
		return m.fish(), nil
	}
	return "", fmt.Errorf("--completion %q: one of bash, zsh, fish", shell)
}

// fnName is name as part of a shell function's name.
func fnName(name string) string {
	return regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(name, "_")
}

// valueFlags are the flags that take a value, by the number of its words.
func (m compModel) valueFlags(args int) (long, short []string) {
	for _, f := range m.flags {
		if f.args == args {
			long = append(long, "--"+f.long)
			if f.short != 0 {
				short = append(short, string(f.short))
			}
		}
	}
	return long, short
}

func (m compModel) flag(long string) compFlag {
	for _, f := range m.flags {
		if f.long == long {
			return f
		}
	}
	panic("complete: no flag --" + long)
}

// shortValueLetters are the short flags that take a value, as a bracket
// expression's letters.
func (m compModel) shortValueLetters() string {
	var s string
	for _, f := range m.flags {
		if f.args > 0 && f.short != 0 {
			s += string(f.short)
		}
	}
	return s
}

// ---- bash

const bashHelpers = `# _evtools_words WORDS: one of the words. _evtools_list WORDS: a
# comma-separated list of them. _evtools_files: a file name.
# _evtools_filters TOOL: a named filter, from TOOL --list.
_evtools_words() {
	local IFS=$' \t\n'
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}
_evtools_list() {
	local IFS=$' \t\n' pre= last=$cur
	if [[ $cur == *,* ]]; then
		pre=${cur%,*}, last=${cur##*,}
	fi
	COMPREPLY=($(compgen -P "$pre" -W "$1" -- "$last"))
	compopt -o nospace 2>/dev/null
}
_evtools_files() {
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
}
_evtools_filters() {
	local IFS=$' \t\n' cmd=$1 names
	[[ $cmd == '~/'* ]] && cmd=$HOME/${cmd#'~/'}
	names=$("$cmd" --list 2>/dev/null | awk -F '  +' '{ n = $1; sub(/[( ].*/, "", n); print n }')
	COMPREPLY=($(compgen -W "$names" -- "$cur"))
}
`

// script is a completion script being written; w adds to it as
// fmt.Fprintf does.
type script struct{ strings.Builder }

func (s *script) w(format string, a ...any) { fmt.Fprintf(s, format, a...) }

func (m compModel) bash() string {
	fn := "_evtools_" + fnName(m.name)
	var b script
	b.w("# bash completion for %s, written by `%s --completion bash`: its flags, their\n", m.name, m.name)
	b.w("# values, and its arguments. Source it, or put it in a folder of\n")
	b.w("# bash-completion's (share/bash-completion/completions/%s).\n\n", m.name)
	b.WriteString(bashHelpers)
	b.w("\n%s() {\n", fn)
	b.w("\tlocal cur=${COMP_WORDS[COMP_CWORD]} w flag= i=1 j need=0 npos=0 dashdash= firstrest=\n")
	b.w("\tCOMPREPLY=()\n")
	b.w("\t# The words before the cursor: flags, their values (bash splits\n")
	b.w("\t# --flag=VALUE at the =), arguments.\n")
	b.w("\twhile (( i < COMP_CWORD )); do\n")
	b.w("\t\tw=${COMP_WORDS[i]}\n")
	b.w("\t\t(( i++ ))\n")
	b.w("\t\tif (( need > 0 )); then\n")
	b.w("\t\t\t[[ $w == = ]] || (( need-- ))\n")
	b.w("\t\t\tcontinue\n")
	b.w("\t\tfi\n")
	b.w("\t\tif [[ -n $dashdash || $w != -?* ]]; then\n")
	b.w("\t\t\t(( npos++ ))\n")
	b.w("\t\t\tcontinue\n")
	b.w("\t\tfi\n")
	b.w("\t\tcase $w in\n")
	b.w("\t\t--) dashdash=1 ;;\n")
	for args := 1; args <= 2; args++ {
		if long, _ := m.valueFlags(args); len(long) > 0 {
			b.w("\t\t%s) flag=$w need=%d ;;\n", strings.Join(long, "|"), args)
		}
	}
	b.w("\t\t--*) ;;\n")
	b.w("\t\t*) # short flags, maybe bundled: the first that takes a value takes the\n")
	b.w("\t\t   # rest of the word, or the next word\n")
	b.w("\t\t\tfor (( j = 1; j < ${#w}; j++ )); do\n")
	b.w("\t\t\t\tcase ${w:j:1} in\n")
	if letters := m.shortValueLetters(); letters != "" {
		b.w("\t\t\t\t[%s])\n", letters)
		b.w("\t\t\t\t\tflag=-${w:j:1}\n")
		b.w("\t\t\t\t\t(( j == ${#w} - 1 )) && need=1\n")
		b.w("\t\t\t\t\tbreak ;;\n")
	}
	b.w("\t\t\t\tesac\n")
	b.w("\t\t\tdone ;;\n")
	b.w("\t\tesac\n")
	if len(m.firstUnless) > 0 {
		var pats []string
		for _, l := range m.firstUnless {
			pats = append(pats, "--"+l)
			if f := m.flag(l); f.short != 0 {
				pats = append(pats, "-"+string(f.short))
			}
		}
		b.w("\t\tcase $flag in %s) firstrest=1 ;; esac\n", strings.Join(pats, "|"))
	}
	b.w("\tdone\n")
	b.w("\t[[ $cur == = ]] && cur=\n")
	b.w("\tif (( need > 0 )); then\n")
	b.w("\t\tcase $flag in\n")
	for _, f := range m.flags {
		if f.args == 0 {
			continue
		}
		pat := "--" + f.long
		if f.short != 0 {
			pat += "|-" + string(f.short)
		}
		if action := bashAction(f.values, f.args); action != "" {
			b.w("\t\t%s) %s ;;\n", pat, action)
		}
	}
	b.w("\t\tesac\n")
	b.w("\t\treturn\n")
	b.w("\tfi\n")
	var longs []string
	for _, f := range m.flags {
		longs = append(longs, "--"+f.long)
	}
	b.w("\tif [[ -z $dashdash && $cur == -* ]]; then\n")
	b.w("\t\t_evtools_words %q\n", strings.Join(longs, " "))
	b.w("\t\treturn\n")
	b.w("\tfi\n")
	if m.first.Kind != m.rest.Kind {
		b.w("\tif (( npos == 0 )) && [[ -z $firstrest ]]; then\n")
		b.w("\t\t%s\n", or(bashAction(m.first, 1), ":"))
		b.w("\t\treturn\n")
		b.w("\tfi\n")
	}
	if a := bashAction(m.rest, 1); a != "" {
		b.w("\t%s\n", a)
	}
	b.w("}\n")
	b.w("complete -F %s %s\n", fn, m.name)
	return b.String()
}

func or(s, t string) string {
	if s == "" {
		return t
	}
	return s
}

// bashAction completes the value of a flag or argument; "" for nothing.
func bashAction(v tooldoc.ValueSpec, args int) string {
	if args > 1 { // --arg NAME VALUE: names and values of the user's
		return ""
	}
	switch v.Kind {
	case tooldoc.FileValues:
		return "_evtools_files"
	case tooldoc.OneOf:
		return fmt.Sprintf("_evtools_words %q", strings.Join(v.Words, " "))
	case tooldoc.ListOf:
		return fmt.Sprintf("_evtools_list %q", strings.Join(v.Words, " "))
	case tooldoc.FilterNames:
		return `_evtools_filters "$1"`
	}
	return ""
}

// ---- zsh

// zshQuote quotes s for a single-quoted zsh word.
func zshQuote(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

// zshDesc escapes a description for an _arguments [...] part.
func zshDesc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

// zshAction is a value's message and action for _arguments.
func zshAction(v tooldoc.ValueSpec, holder string) string {
	holder = strings.ReplaceAll(holder, ":", `\:`)
	switch v.Kind {
	case tooldoc.FileValues:
		return ":" + holder + ":_files"
	case tooldoc.OneOf:
		return ":" + holder + ":(" + strings.Join(v.Words, " ") + ")"
	case tooldoc.ListOf:
		return ":" + holder + ":_sequence compadd - " + strings.Join(v.Words, " ")
	case tooldoc.FilterNames:
		return ":" + holder + ":_evtools_filters"
	}
	return ":" + holder + ": "
}

const zshFilters = `# _evtools_filters: a named filter, from TOOL --list (the command line's
# first word), with what it selects.
(( $+functions[_evtools_filters] )) ||
_evtools_filters() {
	local -a filters
	filters=(${(f)"$(_call_program filters $words[1] --list 2>/dev/null |
		awk -F '  +' '{ n = $1; sub(/[( ].*/, "", n); if (seen[n]++) next; d = $3; if ($1 != n) d = $1 ": " d; gsub(/:/, "\\:", n); print n ":" d }')"})
	_describe -t filters 'named filter' filters
}
`

func (m compModel) zsh() string {
	fn := "_" + fnName(m.name)
	var b script
	b.w("#compdef %s\n", m.name)
	b.w("# zsh completion for %s, written by `%s --completion zsh`: its flags, their\n", m.name, m.name)
	b.w("# values, and its arguments. Put it in a folder of $fpath as %s, or source it.\n\n", fn)
	if m.first.Kind == tooldoc.FilterNames || m.rest.Kind == tooldoc.FilterNames {
		b.WriteString(zshFilters + "\n")
	}
	b.w("%s() {\n", fn)
	b.w("\tlocal -a args\n")
	b.w("\targs=(\n")
	for _, f := range m.flags {
		var excl []string
		switch {
		case f.alone:
			excl = []string{"-", "*"}
		default:
			for _, e := range f.excl {
				o := m.flag(e)
				if o.short != 0 {
					excl = append(excl, "-"+string(o.short))
				}
				excl = append(excl, "--"+o.long)
			}
			if slices.Contains(m.firstUnless, f.long) {
				excl = append([]string{"1"}, excl...)
			}
		}
		var spec string
		if len(excl) > 0 {
			spec = "'(" + strings.Join(excl, " ") + ")'"
		}
		if f.repeat {
			spec += "'*'"
		}
		short, long := "", "--"+f.long
		if f.short != 0 {
			short = "-" + string(f.short)
		}
		if f.args == 1 {
			long += "="
			if short != "" {
				short += "+"
			}
		}
		if short != "" {
			spec += "{" + short + "," + long + "}"
		} else {
			spec += long
		}
		spec += "'[" + zshQuote(zshDesc(f.desc)) + "]"
		for _, h := range f.holder {
			v := f.values
			if f.args > 1 {
				v = tooldoc.ValueSpec{}
			}
			spec += zshQuote(zshAction(v, h))
		}
		spec += "'"
		b.w("\t\t%s\n", spec)
	}
	if m.first.Kind != m.rest.Kind {
		b.w("\t\t'1%s'\n", zshQuote(zshAction(m.first, m.firstName)))
	}
	b.w("\t\t'*%s'\n", zshQuote(zshAction(m.rest, m.restName)))
	b.w("\t)\n")
	b.w("\t_arguments -s -S $args\n")
	b.w("}\n\n")
	b.w("if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n")
	b.w("\t%s \"$@\"\n", fn)
	b.w("else\n")
	b.w("\tcompdef %s %s\n", fn, m.name)
	b.w("fi\n")
	return b.String()
}

// ---- fish

// fishQuote quotes s for a single-quoted fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

const fishHelpers = `# __evtools_list WORDS: a comma-separated list of the words.
# __evtools_filters: a named filter, from TOOL --list (the command line's
# first word), with what it selects.
function __evtools_list
	set -l tok (commandline -ct | string replace -r -- '^-[^=]*=' '')
	set -l pre (string match -r -- '^.*,' $tok)
	test -n "$pre"; or set pre ''
	for w in $argv
		echo $pre$w
	end
end
function __evtools_filters
	set -l cmd (commandline -opc)[1]
	$cmd --list 2>/dev/null | awk -F '  +' '{ n = $1; sub(/[( ].*/, "", n); if (seen[n]++) next; d = $3; if ($1 != n) d = $1 ": " d; print n "\t" d }'
end
`

func (m compModel) fish() string {
	var b script
	b.w("# fish completion for %s, written by `%s --completion fish`: its flags,\n", m.name, m.name)
	b.w("# their values, and its arguments. Put it in a folder of fish's\n")
	b.w("# (share/fish/vendor_completions.d/%s.fish), or source it.\n\n", m.name)
	b.WriteString(fishHelpers)
	first := ""
	if m.first.Kind != m.rest.Kind {
		first = "__evtools_" + fnName(m.name) + "_first"
		m.fishFirst(&b, first)
	}
	b.w("\n")
	c := "complete -c " + m.name
	if m.rest.Kind != tooldoc.FileValues {
		b.w("%s -f\n", c)
	}
	for _, f := range m.flags {
		s := c
		if f.short != 0 {
			s += " -s " + string(f.short)
		}
		s += " -l " + f.long
		if f.args > 0 {
			switch {
			case f.args > 1:
				s += " -x"
			case f.values.Kind == tooldoc.FileValues:
				s += " -r -F"
			case f.values.Kind == tooldoc.OneOf:
				s += " -x -a " + fishQuote(strings.Join(f.values.Words, " "))
			case f.values.Kind == tooldoc.ListOf:
				s += " -x -a " + fishQuote("(__evtools_list "+strings.Join(f.values.Words, " ")+")")
			case f.values.Kind == tooldoc.FilterNames:
				s += " -x -a '(__evtools_filters)'"
			default:
				s += " -x"
			}
		}
		s += " -d " + fishQuote(f.desc)
		b.w("%s\n", s)
	}
	if first != "" {
		switch m.first.Kind {
		case tooldoc.FilterNames:
			b.w("%s -n %s -f -a '(__evtools_filters)'\n", c, first)
		case tooldoc.OneOf:
			b.w("%s -n %s -f -a %s\n", c, first, fishQuote(strings.Join(m.first.Words, " ")))
		}
	}
	return b.String()
}

// fishFirst writes the fish function first, which says whether the word
// under the cursor is the tool's first argument: past the flags and their
// values, and not after a flag of firstUnless.
func (m compModel) fishFirst(b *script, first string) {
	b.w("# %s: whether the word under the cursor is %s's first argument.\n", first, m.name)
	b.w("function %s\n", first)
	b.w("\tset -l words (commandline -opc)\n")
	b.w("\tset -e words[1]\n")
	b.w("\tset -l need 0\n")
	b.w("\tset -l npos 0\n")
	b.w("\tset -l dashdash\n")
	b.w("\tfor w in $words\n")
	b.w("\t\tif test $need -gt 0\n")
	b.w("\t\t\tset need (math $need - 1)\n")
	b.w("\t\t\tcontinue\n")
	b.w("\t\tend\n")
	b.w("\t\tif test -z \"$dashdash\"\n")
	b.w("\t\t\tswitch $w\n")
	b.w("\t\t\t\tcase --\n")
	b.w("\t\t\t\t\tset dashdash 1\n")
	b.w("\t\t\t\t\tcontinue\n")
	var unlessLong []string
	unlessShort := ""
	for _, l := range m.firstUnless {
		unlessLong = append(unlessLong, "--"+l, fishQuote("--"+l+"=*"))
		if f := m.flag(l); f.short != 0 {
			unlessShort += string(f.short)
		}
	}
	if len(unlessLong) > 0 {
		b.w("\t\t\t\tcase %s\n", strings.Join(unlessLong, " "))
		b.w("\t\t\t\t\treturn 1\n")
	}
	for args := 1; args <= 2; args++ {
		if long, _ := m.valueFlags(args); len(long) > 0 {
			b.w("\t\t\t\tcase %s\n", strings.Join(long, " "))
			b.w("\t\t\t\t\tset need %d\n", args)
			b.w("\t\t\t\t\tcontinue\n")
		}
	}
	b.w("\t\t\t\tcase '--*'\n")
	b.w("\t\t\t\t\tcontinue\n")
	b.w("\t\t\t\tcase '-?*'\n")
	letters := m.shortValueLetters()
	if unlessShort != "" {
		b.w("\t\t\t\t\tstring match -qr -- %s $w; and return 1\n", fishQuote("^-[^-"+letters+"]*["+unlessShort+"]"))
	}
	if letters != "" {
		b.w("\t\t\t\t\tstring match -qr -- %s $w; and set need 1\n", fishQuote("^-[^-"+letters+"]*["+letters+"]$"))
	}
	b.w("\t\t\t\t\tcontinue\n")
	b.w("\t\t\tend\n")
	b.w("\t\tend\n")
	b.w("\t\tset npos (math $npos + 1)\n")
	b.w("\tend\n")
	b.w("\ttest $need -eq 0 -a $npos -eq 0\n")
	b.w("end\n")
}
