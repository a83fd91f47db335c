package jsonl_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// A filter in a few lines: read records from stdin (or the files named),
// report the ones that are not JSON objects with their file and line, and
// pass the others on, flushing whenever the input would block.
func Example() {
	stdin := strings.NewReader("{\"kind\":\"a\"}\r\nnot json\n\n{\"kind\":\"b\"}")
	out := jsonl.NewWriter(os.Stdout)
	in := &jsonl.Input{Tool: "myfilter", Stdin: stdin, Stderr: os.Stdout, Out: out}
	err := in.Each(func(rec jsonl.Record) error {
		if err := jsonscan.Check(rec.Data); err != nil {
			return in.Bad(rec, err)
		}
		out.WriteLine(rec.Data)
		return nil
	})
	out.Flush()
	if err != nil && !errors.Is(err, jsonl.ErrStrict) {
		panic(err)
	}
	if in.Trouble() {
		os.Stdout.WriteString("exit status 2\n")
	}
	// Output:
	// {"kind":"a"}
	// myfilter: <stdin>:2: invalid character 'o' at column 2
	// {"kind":"b"}
	// exit status 2
}

// Ordered in parallel: a filter whose verdict on a record needs no other
// record judges blocks of lines on two workers; the records it keeps
// come out in input order, as one loop over Each would write them.
func ExampleBlocks() {
	stdin := strings.NewReader("{\"kind\":\"tool_call\"}\n{\"kind\":\"text\"}\n{\"kind\":\"tool_call\",\"n\":2}\n")
	out := jsonl.NewWriter(os.Stdout)
	in := &jsonl.Input{Tool: "pick", Stdin: stdin, Stderr: os.Stdout, Out: out}
	pick := jsonl.Blocks[struct{}, []bool]{
		Workers:   2,
		NewWorker: func() struct{} { return struct{}{} },
		// on a worker: a verdict per record of the block
		Work: func(_ struct{}, b *jsonl.Block, keep *[]bool) {
			*keep = (*keep)[:0]
			b.Frame(func(_ int, rec []byte) {
				*keep = append(*keep, bytes.Contains(rec, []byte(`"tool_call"`)))
			})
		},
		// on the reading goroutine, in input order
		Take: func(keep *[]bool, i int, rec jsonl.Record) error {
			if (*keep)[i] {
				out.WriteLine(rec.Data)
			}
			return nil
		},
	}
	if err := pick.Each(in); err != nil {
		panic(err)
	}
	// Output:
	// {"kind":"tool_call"}
	// {"kind":"tool_call","n":2}
}

// In parallel with a merge: a count of the records by kind, each part of
// the input (here chunks of a pipe) counted on a worker of its own and
// the counts merged in input order. A bad line is reported as one pass
// would report it.
func ExampleParts() {
	stdin := strings.NewReader("{\"kind\":\"a\"}\n{\"kind\":\"b\"}\nnot json\n{\"kind\":\"a\"}\n")
	in := &jsonl.Input{Tool: "count", Stdin: stdin, Stderr: os.Stdout}
	total := map[string]int{}
	add := func(counts map[string]int, rec []byte) error {
		if err := jsonscan.Check(rec); err != nil {
			return err // a bad line
		}
		kind, _ := jsonscan.Lookup(rec, "kind")
		counts[string(kind)]++
		return nil
	}
	count := jsonl.Parts[map[string]int]{
		Workers: 2,
		New:     func() map[string]int { return map[string]int{} },
		Add:     add,
		Merge: func(counts map[string]int) error {
			for k, n := range counts {
				total[k] += n
			}
			return nil
		},
		// what a part cannot do as one pass does is done here
		Serial: func(rec []byte) error { return add(total, rec) },
	}
	if err := count.Each(in); err != nil {
		panic(err) // ErrOnePass: read with in.Each instead
	}
	for _, k := range slices.Sorted(maps.Keys(total)) {
		fmt.Println(k, total[k])
	}
	// Output:
	// count: <stdin>:3: invalid character 'o' at column 2
	// "a" 2
	// "b" 1
}

// A whole input already read (ReadFile, ReadAll), framed by the rules
// every reading mode applies: the BOM, '\r' and blank lines.
func ExampleLines() {
	data := []byte("\ufeff{\"a\":1}\r\n\n{\"b\":2}")
	jsonl.Lines(data, func(line int, rec []byte, nul bool) bool {
		fmt.Printf("%d: %s\n", line, rec)
		return true
	})
	// Output:
	// 1: {"a":1}
	// 3: {"b":2}
}

// A view's Write gets its lines whole, however the writes cut them.
func ExampleLineJoiner() {
	var j jsonl.LineJoiner
	for _, piece := range []string{`{"a":`, "1}\n{\"b\":2}\n{\"c\"", ":3}"} {
		j.Lines([]byte(piece), func(line []byte) bool {
			fmt.Printf("%s\n", line)
			return true
		})
	}
	fmt.Printf("%s (no newline)\n", j.Rest())
	// Output:
	// {"a":1}
	// {"b":2}
	// {"c":3} (no newline)
}
