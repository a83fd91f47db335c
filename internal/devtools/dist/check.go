package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// listed is what go list says of a package, for one target.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Error      *struct{ Err string }
}

// Check type-checks the packages pattern names, and every package they
// import (the standard library too), as each target (GOOS/GOARCH) builds
// them with CGO_ENABLED=0: the files its build constraints select, its
// sizes. What `go build` would reject there for a type error (a name
// defined only on Linux, a unix call freebsd lacks, an int that is 32 bits
// on Windows) it reports as compile errors would read, at a fraction of the
// time: nothing is compiled, so no standard library per target. It
// returns the errors, one target's after another.
func Check(goCmd, dir string, targets []string, patterns ...string) []string {
	results := make([][]string, len(targets))
	// go list takes any GOOS: ask the go command which targets it builds.
	known, err := exec.Command(goCmd, "tool", "dist", "list").Output()
	if err != nil {
		return []string{fmt.Sprintf("go tool dist list: %v", err)}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, t := range targets {
		if !slices.Contains(strings.Fields(string(known)), t) {
			results[i] = []string{t + ": not a target of " + goCmd + " (go tool dist list)"}
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = checkTarget(goCmd, dir, t, patterns)
		})
	}
	wg.Wait()
	var all []string
	for _, r := range results {
		all = append(all, r...)
	}
	return all
}

func checkTarget(goCmd, dir, target string, patterns []string) (errs []string) {
	goos, goarch, _ := strings.Cut(target, "/")
	fail := func(format string, args ...any) {
		errs = append(errs, target+": "+fmt.Sprintf(format, args...))
	}
	cmd := exec.Command(goCmd, append([]string{"list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,ImportMap,Error"}, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		fail("go list: %v\n%s", err, stderr.String())
		return errs
	}
	sizes := types.SizesFor("gc", goarch)
	if sizes == nil {
		fail("unknown GOARCH")
		return errs
	}
	fset := token.NewFileSet()
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			fail("go list: %v", err)
			return errs
		}
		if p.Error != nil {
			fail("%s: %s", p.ImportPath, p.Error.Err)
			continue
		}
		if p.ImportPath == "unsafe" {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				fail("%v", err)
				continue
			}
			files = append(files, f)
		}
		n := 0
		conf := types.Config{
			Sizes: sizes,
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if m, ok := p.ImportMap[path]; ok {
					path = m
				}
				if pkg := checked[path]; pkg != nil {
					return pkg, nil
				}
				return nil, fmt.Errorf("%s: not type-checked (it failed, or go list did not list it first)", path)
			}),
			Error: func(err error) {
				// One package's first errors say enough; the rest follow
				// from them.
				if n++; n <= 10 {
					fail("%v", err)
				}
			},
		}
		// A package with errors is kept as far as it goes, so that what
		// imports it is not failed for it once more.
		checked[p.ImportPath], _ = conf.Check(p.ImportPath, fset, files, nil)
	}
	return errs
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
