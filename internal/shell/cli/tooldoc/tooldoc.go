// Package tooldoc is what the texts about a command are written from:
// the Tool (its name, summary, examples and exit statuses), its kong
// model, and the notes below on what the model does not say (the
// environment each tool reads, the values of flags kong does not check).
// --help (package cli), the man page (package man) and the completion
// scripts (package complete) read them the same way, so that they say the
// same.
package tooldoc

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// Tool describes a command for its help text, its man page and its
// completion scripts.
type Tool struct {
	Name     string // e.g. "evfilter"
	Summary  string // one line: what it does
	Details  string // paragraphs after the usage line
	Examples string // shell lines, printed under "Examples:"
	Exit     string // exit status table, printed under "Exit status:"
	// Usage, when set, replaces what kong puts after the name on the
	// "Usage:" line (kong cannot say "EXPR [FILE ...]").
	Usage string
	// Files is the help of the FILE arguments (cli.Input's): what the
	// tool reads, and what it reads when none is named.
	Files string
	// Vars are the variables of the help texts (${columns}), and Words
	// the values of the flags the tool checks itself (no enum tag), by
	// flag name: lists a tool makes from tables of its own, read when
	// the help, the man page or a completion script is written.
	Vars  func() map[string]string
	Words func() map[string]Words

	// What the man page and the completion scripts say that the kong
	// model does not: the environment the tool reads (ViewEnv for the
	// pretty view's), what its first positional argument is (nothing
	// set: a file, as the others), and pages of SEE ALSO beyond the
	// other tools and evtools(7).
	Env []EnvVar
	// First is what the first positional argument is; after one of the
	// flags FirstUnless it is a file like the others (evfilter -f FILE:
	// every argument is a file).
	First       ValueSpec
	FirstUnless []string
	SeeAlso     []string
}

// Words are the values a flag takes: the man page lists them and the
// completion scripts offer them.
type Words struct {
	List  bool // comma-separated words of the list, not one of them
	Words []string
}

// HelpText is a flag's help as --help shows it.
func HelpText(app *kong.Application, f *kong.Flag) string {
	if f == app.HelpFlag {
		return "Show this help and exit."
	}
	return f.Help
}

// VisibleFlags are the flags --help lists, in its order.
func VisibleFlags(app *kong.Application) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range app.Flags {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// Placeholder is a flag's value as --help writes it: NAME VALUE for a flag
// that takes two words, without kong's ",..." for a repeated flag.
func Placeholder(f *kong.Flag) string {
	return strings.TrimSuffix(f.FormatPlaceHolder(), ",...")
}

// TakesValue reports whether f, a flag or nil, is followed by a value.
func TakesValue(f *kong.Flag) bool { return f != nil && !f.IsBool() && !f.IsCounter() }

// ArgsUsage is what comes after the flags on the usage line: Tool.Usage
// without "[flags]", else kong's positional arguments (FILE ... in
// brackets when optional).
func ArgsUsage(t Tool, app *kong.Application) string {
	if t.Usage != "" {
		return strings.Join(strings.Fields(strings.ReplaceAll(t.Usage, "[flags]", "")), " ")
	}
	var parts []string
	for _, p := range app.Positional {
		s := p.Name
		if p.IsCumulative() {
			s += " ..."
		}
		if !p.Required {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Undocumented returns an error for each flag or argument of the model
// that has no help text: the man page and --help would list it bare.
func Undocumented(app *kong.Application) error {
	var errs []error
	for _, f := range app.Flags {
		if strings.TrimSpace(f.Help) == "" {
			errs = append(errs, fmt.Errorf("--%s has no help text", f.Name))
		}
	}
	for _, p := range app.Positional {
		if strings.TrimSpace(p.Help) == "" {
			errs = append(errs, fmt.Errorf("argument %s has no help text", p.Name))
		}
	}
	return errors.Join(errs...)
}

// FlagValues is what a flag's values are: its Notes, else its enum, else
// a file for a FILE placeholder.
func FlagValues(f *kong.Flag, n Notes) ValueSpec {
	if v, ok := n.Values[f.Name]; ok {
		return v
	}
	if f.Enum != "" {
		var words []string
		for _, w := range f.EnumSlice() {
			if w != "" {
				words = append(words, w)
			}
		}
		return ValueSpec{OneOf, words}
	}
	if TakesValue(f) && Placeholder(f) == "FILE" {
		return ValueSpec{Kind: FileValues}
	}
	return ValueSpec{}
}

// UsageWord is a word of a usage line (EXPR, FILE, flags), as against its
// brackets and dots.
var UsageWord = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_-]*`)
