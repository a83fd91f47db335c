// Package cli holds what every evtools command does the same way: flag
// parsing and help through kong (with the flags --man and --completion,
// whose texts packages man and complete write), the version, the process's
// streams (Stdio), exit codes and error printing. What the tools know of
// the terminal is package term's; the progress line is package progress's.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Exit codes shared by every tool. A tool documents which it uses.
const (
	ExitOK    = 0 // success
	ExitFound = 1 // the tool's negative answer: nothing matched, anomalies found
	ExitError = 2 // usage error, unreadable input, bad input lines
	ExitBusy  = 3 // a lock is held by another run (evcursor --state)
)

// Version is the evtools release; builds from a checkout add the commit.
// make dist (scripts/dist.sh) stamps both with -ldflags -X, since a
// release build may have Go's own VCS stamping turned off
// (GOFLAGS=-buildvcs=false, -trimpath in a clean copy): Version from a
// v* tag at the commit, Commit from git rev-parse (12 hex digits, with
// "-dirty" when the checkout had changes).
var (
	Version = "0.1.0"
	Commit  = ""
)

func version() string {
	v := Version
	if Commit != "" {
		return v + " (" + Commit + ")"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}

// Stdio is the process's streams, handed to a tool by main or by a test.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Safe is stdio with stderr made safe (term.SafeAlways): messages carry
// data and file names, whose control characters must not reach a terminal
// raw, whoever writes them, and a message written to a log reaches one
// when the log is read. A tool's own control sequences (the progress
// line) go round it through term.Raw.
func (s Stdio) Safe() Stdio {
	s.Err = term.SafeAlways(s.Err)
	return s
}

// Tool describes a command for its help text, its man page and its
// completion scripts (tooldoc.Tool, where those are written from).
type Tool = tooldoc.Tool

// Words are the values a flag takes (tooldoc.Words).
type Words = tooldoc.Words

// EnvVar is an environment variable a tool reads (tooldoc.EnvVar).
type EnvVar = tooldoc.EnvVar

// ViewEnv is the environment the pretty view reads (tooldoc.ViewEnv).
var ViewEnv = tooldoc.ViewEnv

// ExitCoder is an error that says which exit status it ends the run with,
// as gojq's errors do. Report reads it.
type ExitCoder interface {
	error
	ExitCode() int
}

// Error is an error that carries its exit code. An Error without Err (see
// Status) ends the run with Code and prints nothing.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the error behind the status.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the exit status the error ends the run with.
func (e *Error) ExitCode() int { return e.Code }

// Errorf makes an *Error with code.
func Errorf(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// Status ends a run with code and prints nothing: the status is the whole
// answer (evfilter selected nothing), or what there was to say was said
// while the input was read (bad lines, anomalies).
func Status(code int) error { return &Error{Code: code} }

// usageError is a mistake in the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }
func (e *usageError) ExitCode() int { return ExitError }

// Usage marks err as a usage error: Report prints it with a pointer to
// --help, and the exit status is ExitError.
func Usage(err error) error { return &usageError{err} }

type exitPanic struct{ code int }

// Parse parses args into opts (a kong struct). An error means the run is
// over already: --help and --version (printed; a Status), or a usage error
// for Report to print.
func Parse(t Tool, args []string, stdio Stdio, opts any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			ep, ok := r.(exitPanic)
			if !ok {
				panic(r)
			}
			err = Status(ep.code)
		}
	}()
	desc := t.Summary
	if t.Details != "" {
		desc += "\n\n" + strings.TrimSpace(t.Details)
	}
	vars := kong.Vars{"version": t.Name + " " + version(), "files": t.Files}
	if t.Vars != nil {
		for k, v := range t.Vars() {
			vars[k] = v
		}
	}
	var b builtins
	parser, err := kong.New(opts,
		kong.Embed(&b),
		kong.Name(t.Name),
		kong.Description(desc),
		kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(func(c int) { panic(exitPanic{c}) }),
		vars,
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
		kong.Help(func(o kong.HelpOptions, ctx *kong.Context) error {
			w := ctx.Stdout
			var b strings.Builder
			ctx.Stdout = &b
			err := kong.DefaultHelpPrinter(o, ctx)
			ctx.Stdout = w
			if err != nil {
				return err
			}
			io.WriteString(w, fixHelp(t, b.String(), ctx.Model.AllFlags(false)))
			if t.Examples != "" {
				fmt.Fprintf(w, "\nExamples:\n%s\n", indent(t.Examples))
			}
			if t.Exit != "" {
				fmt.Fprintf(w, "\nExit status:\n%s\n", indent(t.Exit))
			}
			fmt.Fprintf(w, "\n%s --man prints the manual page, %s --completion bash|zsh|fish a completion script.\n", t.Name, t.Name)
			return nil
		}),
	)
	if err != nil {
		panic(err) // a bug in the tool's option struct
	}
	flags := parser.Model.AllFlags(false)
	ctx, err := parser.Parse(flagsFirst(joinDashValues(args, flags), flags))
	if err != nil {
		return Usage(kongMessage(err))
	}
	if err := emptyFiles(ctx); err != nil {
		return Usage(err)
	}
	return b.run(t, parser.Model, stdio.Out)
}

// Two of kong's messages said the other way round from the tools' own: a
// value not of an enum, and an unknown flag with a list of near ones.
var (
	enumMessage = regexp.MustCompile(`^(--[\w-]+) must be one of ((?:"[^"]*",?)+) but got ("[^"]*")$`)
	flagMessage = regexp.MustCompile(`^unknown flag (--?[\w-]+), did you mean (?:one of )?(.*)\?$`)
	quoted      = regexp.MustCompile(`"([^"]*)"`)
)

// kongMessage is err said as the tools say their own usage errors:
// `--format "x": one of a, b` (as evsum's --format), and one suggestion,
// the nearest long flag, for an unknown one.
func kongMessage(err error) error {
	msg := err.Error()
	if m := enumMessage.FindStringSubmatch(msg); m != nil {
		var words []string
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			words = append(words, q[1])
		}
		return fmt.Errorf("%s %s: one of %s", m[1], m[3], strings.Join(words, ", "))
	}
	if m := flagMessage.FindStringSubmatch(msg); m != nil {
		var long []string
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			if w, ok := strings.CutPrefix(q[1], "--"); ok {
				long = append(long, w)
			}
		}
		if w := textfmt.NearestWord(strings.TrimLeft(m[1], "-"), long); w != "" {
			return fmt.Errorf("unknown flag %s, did you mean --%s?", m[1], w)
		}
		return fmt.Errorf("unknown flag %s", m[1])
	}
	return err
}

// emptyFiles refuses a flag that names a file given an empty name, as a
// cron line with an unset variable gives it (--state "$CURSOR"): left to
// the tool, "" would read as the flag not given at all.
func emptyFiles(ctx *kong.Context) error {
	for _, el := range ctx.Path {
		f := el.Flag
		if f == nil || tooldoc.Placeholder(f) != "FILE" {
			continue
		}
		v := f.Target
		empty := v.Kind() == reflect.String && v.String() == ""
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String {
			for i := range v.Len() {
				empty = empty || v.Index(i).String() == ""
			}
		}
		if empty {
			return fmt.Errorf("--%s: an empty file name (an unset variable?)", f.Name)
		}
	}
	return nil
}

// fixHelp corrects what kong's help says wrongly for these tools: the usage
// line (Tool.Usage), a flag whose placeholder is two words (--arg NAME
// VALUE takes two arguments, not --arg=NAME VALUE), and the --help line.
func fixHelp(t Tool, help string, groups [][]*kong.Flag) string {
	lines := strings.Split(help, "\n")
	if t.Usage != "" && strings.HasPrefix(lines[0], "Usage: ") {
		// kong's synopsis of the arguments, also the first column of
		// the Arguments section, where the new one takes its place.
		old := strings.TrimSuffix(strings.TrimPrefix(lines[0], "Usage: "+t.Name+" "), " [flags]")
		lines[0] = "Usage: " + t.Name + " " + t.Usage
		args := strings.TrimSpace(strings.ReplaceAll(t.Usage, "[flags]", ""))
		if n := len(old) - len(args); n > 0 {
			args += strings.Repeat(" ", n)
		}
		for i := 1; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "  "+old) {
				lines[i] = "  " + args + lines[i][2+len(old):]
			}
		}
	}
	help = strings.Join(lines, "\n")
	for _, g := range groups {
		for _, f := range g {
			if p := tooldoc.Placeholder(f); strings.Contains(p, " ") {
				// Same length: the columns stay aligned. A repeated
				// flag is repeated whole, not given a list (",...").
				help = strings.ReplaceAll(help, "--"+f.Name+"="+p+",...", "--"+f.Name+" "+p+"    ")
				help = strings.ReplaceAll(help, "--"+f.Name+"="+p, "--"+f.Name+" "+p)
			}
		}
	}
	return strings.Replace(help, "Show context-sensitive help.", "Show this help and exit.", 1)
}

// joinDashValues writes a flag that takes a value and is followed by a
// value that starts with "-" and a digit (--start -1, --since -1h, -m -1)
// as --flag=VALUE, so that the tool says what is wrong with the value
// instead of kong taking it for a short flag. No tool has a digit as a
// short flag.
func joinDashValues(args []string, groups [][]*kong.Flag) []string {
	flags := indexFlags(groups)
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if f := flags.named(a); f != nil && tooldoc.TakesValue(f) && i+1 < len(args) {
			if v := args[i+1]; len(v) > 1 && v[0] == '-' && (v[1] >= '0' && v[1] <= '9' || v[1] == '.') {
				out = append(out, "--"+f.Name+"="+v)
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func indent(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}

// Run is the Main of a tool whose flags kong parses alone: it parses args
// into a new O, calls run with it, and reports the outcome (see Report).
func Run[O any](t Tool, args []string, stdio Stdio, run func(*O, Stdio) error) int {
	stdio = stdio.Safe()
	var opts O
	err := Parse(t, args, stdio, &opts)
	if err == nil {
		err = run(&opts, stdio)
	}
	return Report(t.Name, stdio.Err, err)
}

// Report ends a run: it prints err once, as "tool: message", and returns
// the exit status it carries. Every tool's Main ends here, so that the
// mapping from errors to statuses is this one function:
//
//   - nil is ExitOK;
//   - output whose reader went away (| head, jsonl.IsClosed) is a quiet
//     ExitOK: there is nobody left to tell;
//   - jsonl.ErrStrict is a quiet ExitError: the bad line is reported;
//   - a Status is its code, quietly, and so is a signal that stopped the
//     run (stop.Error: 130 or 143);
//   - a usage error is ExitError, with a pointer to --help;
//   - any other error is its ExitCode (ExitCoder), else ExitError.
//
// An error joined from several (errors.Join) is printed a line each.
func Report(tool string, stderr io.Writer, err error) int {
	if err == nil || jsonl.IsClosed(err) {
		return ExitOK
	}
	report(tool, stderr, err)
	var ec ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return ExitError
}

func report(tool string, stderr io.Writer, err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			report(tool, stderr, e)
		}
		return
	}
	var sig *stop.Error
	if e, ok := err.(*Error); ok && e.Err == nil || errors.Is(err, jsonl.ErrStrict) || errors.As(err, &sig) {
		return
	}
	fmt.Fprintf(stderr, "%s: %v\n", tool, err)
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "%s: run '%s --help' for usage\n", tool, tool)
	}
}

// Exec runs a tool as the whole process: it hands over the process's
// streams and exits with the tool's status. SIGPIPE is ignored so that a
// reader going away (`| head -1`) shows up as EPIPE on write, which the
// tools treat as a quiet end with status 0 (and evcursor as an unclean
// end), instead of the process being killed with status 141, which fails a
// pipeline under `set -o pipefail`.
func Exec(tool func(args []string, stdio Stdio) int) {
	signal.Ignore(syscall.SIGPIPE)
	stopOnSignal()
	code := tool(os.Args[1:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if e := stop.Commit(); e != nil {
		// A signal came while the tool ended, before it committed its
		// result (stop.Commit): it is obeyed all the same. One after the
		// commit, the tool's or this one, leaves the status as it is.
		code = e.(*stop.Error).ExitCode()
	}
	os.Exit(code)
}

// flagIndex finds a tool's flags by the words that name them on a command
// line, for the two rewrites of the arguments before kong reads them.
type flagIndex struct {
	long  map[string]*kong.Flag // by name and by alias, without "--"
	short map[rune]*kong.Flag
}

func indexFlags(groups [][]*kong.Flag) flagIndex {
	index := flagIndex{long: map[string]*kong.Flag{}, short: map[rune]*kong.Flag{}}
	for _, g := range groups {
		for _, f := range g {
			index.long[f.Name] = f
			for _, a := range f.Aliases {
				index.long[a] = f
			}
			if f.Short != 0 {
				index.short[f.Short] = f
			}
		}
	}
	return index
}

// named is the flag that arg is the whole name of ("--since", "-m"), or
// nil.
func (index flagIndex) named(arg string) *kong.Flag {
	if name, ok := strings.CutPrefix(arg, "--"); ok {
		return index.long[name]
	}
	if short, ok := strings.CutPrefix(arg, "-"); ok && utf8.RuneCountInString(short) == 1 {
		return index.short[[]rune(short)[0]]
	}
	return nil
}

// flagsFirst puts the flags (with their values) before the positional
// arguments, which keep their order, so that `evsum a.jsonl --by day
// b.jsonl` reads both files, as GNU tools do: kong ends a slice of
// positional arguments at the first flag after it, and at "--". A "--"
// goes in front of the positional arguments that came before it, so that
// `evfilter EXPR -- FILE` reads FILE as a file, as grep does.
func flagsFirst(args []string, groups [][]*kong.Flag) []string {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	index := indexFlags(groups)
	var flags, positional []string
	dangling := false // a flag that takes a value is the last word: kong says so
	for i := 0; i < end; i++ {
		a := args[i]
		// value is whether the flag a takes its value from the next word
		value := false
		switch {
		case a == "-" || !strings.HasPrefix(a, "-"):
			positional = append(positional, a)
			continue
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			value = !hasValue && tooldoc.TakesValue(index.named(name))
		default: // short flags, maybe bundled (-cv), maybe with a value (-m5, -m 5)
			for j, c := range a[1:] {
				if f := index.short[c]; tooldoc.TakesValue(f) {
					value = j+1+len(string(c)) == len(a)
					break
				}
			}
		}
		flags = append(flags, a)
		switch {
		case value && i+1 < end:
			i++
			flags = append(flags, args[i])
		case value:
			dangling = true
		}
	}
	if dangling {
		// its value must not be taken from the files
		return append(positional, append(flags, args[end:]...)...)
	}
	if end == len(args) {
		return append(flags, positional...)
	}
	if len(positional) == 0 {
		return args
	}
	out := append(flags, "--")
	out = append(out, positional...)
	return append(out, args[end+1:]...)
}

// stopOnSignal makes SIGINT and SIGTERM end the tool between two output
// lines, never inside one: it waits (up to 2 s, for output that is not
// blocked) until the tool waits for input with its output flushed, then
// exits 130 or 143 (128 + the signal), as a shell reports a process killed
// by it. A second signal ends it at once. A signal that comes as the input
// ends finds the tool past its last wait: stop.Err, which the tool asks
// before it writes a report or saves a cursor, then ends the run instead.
func stopOnSignal() {
	jsonl.GuardOutput()
	stop.Watch(func(e *stop.Error) {
		jsonl.AtLineEnd(2 * time.Second)
		os.Exit(e.ExitCode())
	})
}
