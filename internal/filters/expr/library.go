package expr

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
)

// Def is one named filter of a library.
type Def struct {
	Name        string   // e.g. "tool"
	Params      []string // e.g. ["$name"]
	Description string   // the comment above the def, on one line
	Source      string   // where it came from: "builtin:failed.jq" or a file path

	def *gojq.FuncDef
}

// Signature is how the filter is called: tool($name).
func (d *Def) Signature() string {
	if len(d.Params) == 0 {
		return d.Name
	}
	return d.Name + "(" + strings.Join(d.Params, "; ") + ")"
}

// Library is an ordered set of named filters; a later def with the same
// name and arity hides an earlier one, as in jq.
type Library struct {
	Defs []*Def
}

// LoadLibrary reads the *.jq files of builtin (the embedded library, sources
// named "builtin:FILE") and then of each folder in dirs, files in name order.
// A folder that does not exist is an error: a typo in EVTOOLS_FILTERS should
// not silently drop filters.
func LoadLibrary(builtin fs.FS, dirs []string) (*Library, error) {
	lib := &Library{}
	if builtin != nil {
		names, err := fs.Glob(builtin, "*.jq")
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		for _, name := range names {
			b, err := fs.ReadFile(builtin, name)
			if err != nil {
				return nil, err
			}
			if err := lib.Add("builtin:"+path.Base(name), string(b)); err != nil {
				return nil, err
			}
		}
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("filters folder %s: %w", dir, unwrapPath(err))
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("filters folder %s: not a folder", dir)
		}
		names, err := filepath.Glob(filepath.Join(dir, "*.jq"))
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
			}
			if err := lib.Add(name, string(b)); err != nil {
				return nil, err
			}
		}
	}
	return lib, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// Add parses src, a file of jq defs, and appends its top-level defs. The
// shorthand applies inside them, with the filters loaded so far in scope.
func (l *Library) Add(source, src string) error {
	// A file of defs alone is not a query: give it a body to parse.
	q, err := gojq.Parse(src + "\n.")
	if err != nil {
		if _, qerr := gojq.Parse(src); qerr == nil {
			// It parses once the body is taken away: it ends in a query.
			return fmt.Errorf("%s: a filters file holds only defs", source)
		}
		return fmt.Errorf("%s: %v", source, err)
	}
	if q.Term == nil || q.Term.Type != gojq.TermTypeIdentity || q.Left != nil || len(q.Imports) > 0 {
		return fmt.Errorf("%s: a filters file holds only defs", source)
	}
	if err := checkNesting(q); err != nil {
		return fmt.Errorf("%s: %v", source, err)
	}
	descs := descriptions(src)
	var r rewriter
	for _, fd := range q.FuncDefs {
		r.visit(fd, l.scope().with(fd.Name, len(fd.Args)), true)
		d := &Def{Name: fd.Name, Params: fd.Args, Source: source, def: fd}
		// The first description not taken yet of a def of that name: a
		// nested def or an indented one does not shift the others.
		for i := range descs {
			if descs[i].name == fd.Name && !descs[i].taken {
				d.Description, descs[i].taken = descs[i].text, true
				break
			}
		}
		l.Defs = append(l.Defs, d)
	}
	return nil
}

// check compiles the library's defs file by file with the variables vars
// ("$name") bound, and names the first file whose defs do not compile
// (a call of an undefined function, say): gojq compiles every def, so an
// error there would otherwise read as the user's expression's.
func (l *Library) check(vars []string) error {
	if l == nil {
		return nil
	}
	var defs []*gojq.FuncDef
	for i, d := range l.Defs {
		defs = append(defs, d.def)
		if i+1 < len(l.Defs) && l.Defs[i+1].Source == d.Source {
			continue
		}
		q := &gojq.Query{FuncDefs: defs, Term: &gojq.Term{Type: gojq.TermTypeIdentity}}
		if _, err := gojq.Compile(q, gojq.WithVariables(vars)); err != nil {
			return fmt.Errorf("%s: %v", d.Source, err)
		}
	}
	return nil
}

// description is the comment above a line starting a def.
type description struct {
	name, text string
	taken      bool
}

// descriptions returns, for each line starting with "def " (after
// spaces), the def's name and the comment lines right above it joined into
// one line.
func descriptions(src string) []description {
	var out []description
	var comment []string
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "def "):
			name := strings.TrimSpace(t[4:])
			if i := strings.IndexFunc(name, func(c rune) bool {
				return !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
			}); i >= 0 {
				name = name[:i]
			}
			out = append(out, description{name: name, text: strings.Join(comment, " ")})
			comment = nil
		case strings.HasPrefix(t, "#"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(t, "#")))
		default:
			comment = nil
		}
	}
	return out
}

// scope is the library's filters as a scope chain, in load order.
func (l *Library) scope() *scope {
	var sc *scope
	if l == nil {
		return nil
	}
	for _, d := range l.Defs {
		sc = sc.withParams(d.Name, d.Params, d.def)
	}
	return sc
}

// lookup returns the def in effect for name/arity: the last one loaded.
func (l *Library) lookup(name string, arity int) *Def {
	if l == nil {
		return nil
	}
	for i := len(l.Defs) - 1; i >= 0; i-- {
		if d := l.Defs[i]; d.Name == name && len(d.Params) == arity {
			return d
		}
	}
	return nil
}

// Hidden reports whether d is hidden by a later def of the same name and
// arity.
func (l *Library) Hidden(d *Def) bool {
	return l.lookup(d.Name, len(d.Params)) != d
}
