// Package expr compiles evfilter's predicates: jq expressions (gojq) over
// events, with a field shorthand, a library of named filters, and a fast
// path that decides simple comparisons without decoding the event.
//
// # Shorthand
//
// A bare name reads a field of its input, so that predicates read as written:
// `kind=="tool_call"` is `.kind=="tool_call"` and `payload.tool=="bash"` is
// `.payload.tool=="bash"`. The expression is parsed by gojq and rewritten on
// its syntax tree, never as text. A bare name (no arguments, no `$`) means,
// in this order:
//
//  1. the filter of that name defined with no parameters in the expression
//     or the named-filter library (`failed`, `tools`);
//  2. for `type` and `error`, which are both jq builtins and event fields:
//     the field where the input is the event itself (the top level, operands
//     of and/or/comparisons, select(), if, parentheses, a binding's body), and
//     the builtin after a pipe that changes the input (`payload | type`,
//     `. | type`, `map(type)`);
//  3. any other jq builtin of no arguments (`not`, `length`, `empty`, `keys`):
//     the builtin — write `.length` for a field called length; a jq
//     builtin gojq lacks (debug, input_line_number) is an error, not a
//     field (jqBuiltins is the one list; input alone is a field);
//  4. anything else: the field of that name of the input (`payload | tool`
//     reads .payload.tool).
//
// # Passing
//
// An event passes when the expression yields, before any error, a value
// that is neither false nor null (jq's select). An error while evaluating
// an event makes it not pass; Match reports it as an *EvalError.
package expr

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/itchyny/gojq"
)

// Options are what an expression is compiled with.
type Options struct {
	Library *Library       // named filters; may be nil
	Vars    map[string]any // $NAME bindings (names without "$"), JSON values as Decode gives them
}

// Filter is a compiled predicate. It is not safe for concurrent use: Clone
// it for each goroutine.
type Filter struct {
	code  *gojq.Code
	names []string
	vals  []any
	fast  *fastProg
	st    *fastState
	paths *frozen // what gojq needs of an event; nil: all of it
	pure  bool    // the verdict depends on the event alone
	part  *partialDecoder

	// The bare names read as fields of the event, and how many of them
	// no event has had a value for yet: while there are some, each event
	// is looked at for them (Nulls).
	fields []watched
	unseen int
}

// InputError is a record that is not a JSON object; Err says why in the
// words of jsonscan.Check.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// MisuseError is an expression that is valid jq but surely not what was
// meant: an update-assignment, an object, a named filter without its
// arguments.
type MisuseError struct{ Err error }

func (e *MisuseError) Error() string { return e.Err.Error() }
func (e *MisuseError) Unwrap() error { return e.Err }

// EvalError is an error the expression raised on one event.
type EvalError struct{ Err error }

func (e *EvalError) Error() string { return e.Err.Error() }
func (e *EvalError) Unwrap() error { return e.Err }

// Compile parses src, applies the shorthand, and compiles it once for every
// event. Errors describe what is wrong with the expression.
func Compile(src string, opts Options) (*Filter, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("bad expression: %v%s", err, caret(src, err))
	}
	if len(q.Imports) > 0 {
		return nil, errors.New("bad expression: import and include are not supported")
	}
	if err := checkNesting(q); err != nil {
		return nil, fmt.Errorf("bad expression: %w", err)
	}
	if err := alwaysPasses(q); err != nil {
		return nil, &MisuseError{err}
	}
	fields, err := rewrite(q, opts.Library)
	if err != nil {
		return nil, &MisuseError{fmt.Errorf("bad expression: %w", err)}
	}

	f := &Filter{names: slices.Sorted(maps.Keys(opts.Vars))}
	for _, name := range f.names {
		f.vals = append(f.vals, opts.Vars[name])
	}
	f.fast = compileFast(q, opts.Library, opts.Vars)
	if f.fast != nil {
		f.st = f.fast.newState()
	}
	f.watch(fields)
	if p := needs(q, opts.Library); p != nil {
		f.paths = p.freeze()
		texts := []string{q.String()}
		if lib := opts.Library; lib != nil {
			for _, d := range lib.Defs {
				texts = append(texts, d.def.String())
			}
		}
		f.pure = pure(texts...)
		f.part = newPartialDecoder(f.paths, f.pure)
	}

	boundDepth(q) // after the analyses above, which read the defs as written
	full := *q
	if lib := opts.Library; lib != nil {
		defs := make([]*gojq.FuncDef, 0, len(lib.Defs)+len(q.FuncDefs))
		for _, d := range lib.Defs {
			defs = append(defs, d.def)
		}
		full.FuncDefs = append(defs, q.FuncDefs...)
	}
	dollar := make([]string, len(f.names))
	for i, n := range f.names {
		dollar[i] = "$" + n
	}
	f.code, err = gojq.Compile(&full, gojq.WithVariables(dollar), gojq.WithEnvironLoader(os.Environ), tooDeepFunc)
	if err != nil {
		if lerr := opts.Library.check(dollar); lerr != nil {
			return nil, lerr // a filters file, not the expression
		}
		return nil, fmt.Errorf("bad expression: %v", err)
	}
	return f, nil
}

// Clone returns a Filter sharing the compiled code with its own scratch
// space, for use in another goroutine.
func (f *Filter) Clone() *Filter {
	c := *f
	if f.fast != nil {
		c.st = f.fast.newState()
	}
	if f.paths != nil {
		c.part = newPartialDecoder(f.paths, f.pure)
	}
	c.fields = slices.Clone(f.fields)
	return &c
}

// Fast reports whether the expression runs on the fast path: a comparison
// of fields with constants decided without decoding the event.
func (f *Filter) Fast() bool { return f.fast != nil }

// Match reports whether line, one record, passes. It returns an
// *InputError if line is not a JSON object and an *EvalError if the
// expression failed on it.
func (f *Filter) Match(line []byte) (bool, error) {
	if f.fast != nil {
		v, err := f.fast.eval(f.st, line)
		if err != nil {
			return false, &InputError{err}
		}
		if f.unseen > 0 {
			f.seeFast()
		}
		if v != bail {
			return v == yes, nil
		}
		if f.part == nil {
			return f.slow(Decode(line)) // the fast path has validated it
		}
	}
	if f.part != nil {
		if err := f.part.scan(line); err != nil {
			return false, &InputError{err}
		}
		if c, ok := f.part.lookup(); ok {
			return c.ok, c.err
		}
		v := f.part.value()
		if f.unseen > 0 && f.fast == nil {
			f.seeValue(v)
		}
		ok, err := f.slow(v)
		f.part.store(ok, err)
		return ok, err
	}
	if err := jsonscan.Check(line); err != nil {
		return false, &InputError{err}
	}
	v := Decode(line)
	if f.unseen > 0 {
		f.seeValue(v)
	}
	return f.slow(v)
}

// Partial reports whether events are decoded only along the paths the
// expression reads.
func (f *Filter) Partial() bool { return f.paths != nil }

func (f *Filter) slow(v any) (bool, error) {
	iter := f.code.Run(v, f.vals...)
	for {
		out, ok := iter.Next()
		if !ok {
			return false, nil
		}
		switch out := out.(type) {
		case error:
			return false, &EvalError{evalMessage(out)}
		case nil:
		case bool:
			if out {
				return true, nil
			}
		default:
			return true, nil
		}
	}
}

// evalMessage makes gojq's error read as one line.
func evalMessage(err error) error {
	var he *gojq.HaltError
	if errors.As(err, &he) {
		if v := he.Value(); v != nil {
			if s, ok := v.(string); ok {
				return errors.New(strings.TrimSpace(s))
			}
		}
		return errors.New("halted")
	}
	return err
}
