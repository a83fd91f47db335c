package grep

import (
	"bytes"
	"os"
	"testing"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// BenchmarkGrep searches the events of a generated corpus (EVTOOLS_GREP_BENCH
// names a file of evimport's output; without it, the lines of the tests
// over and over), one core: the prefilter, the validation evfilter does
// beside it, and the decoding of the candidates.
func BenchmarkGrep(b *testing.B) {
	data := []byte(nil)
	if f := os.Getenv("EVTOOLS_GREP_BENCH"); f != "" {
		var err error
		if data, err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	} else {
		for len(data) < 8<<20 {
			for _, l := range all {
				data = append(append(data, l...), '\n')
			}
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for _, c := range []struct {
		name, pattern string
		o             Options
	}{
		{"rare", "login bug", Options{}},
		{"common", "the", Options{}},
		{"fold", "login bug", Options{IgnoreCase: true}},
		{"regexp", `panic: .*nil map`, Options{}},
		{"regexp-noprefix", `[lL][oO]gin`, Options{}},
	} {
		m, err := Compile(c.pattern, c.o)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, l := range lines {
					m.Match(l)
				}
			}
		})
		b.Run(c.name+"+check", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, l := range lines {
					if jsonscan.Check(l) == nil {
						m.Match(l)
					}
				}
			}
		})
	}
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				jsonscan.Check(l)
			}
		}
	})
}
