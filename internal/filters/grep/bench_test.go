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
	var blocks [][]byte // of about 1 MB, whole lines
	for rest := bytes.TrimSuffix(data, []byte("\n")); len(rest) > 0; {
		n := min(len(rest), 1<<20)
		if i := bytes.IndexByte(rest[n:], '\n'); i >= 0 {
			n += i
		} else {
			n = len(rest)
		}
		blocks = append(blocks, rest[:n])
		rest = rest[min(n+1, len(rest)):]
	}
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
		// what evfilter --grep does on a plain file: blocks of lines,
		// each searched whole and every line validated (TestIn)
		b.Run(c.name+"+block", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for _, blk := range blocks {
					m.Block(blk)
					for rest := blk; len(rest) > 0; {
						// not bytes.Split: its lines' capacity ends
						// with them, and TestIn places a line in
						// the block by it
						n := bytes.IndexByte(rest, '\n')
						if n < 0 {
							n = len(rest) - 1
						}
						m.TestIn(rest[:n])
						rest = rest[n+1:]
					}
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
