package jsonl_test

import (
	"errors"
	"os"
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
