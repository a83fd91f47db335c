package jsonl_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evtools/evtools/pkg/jsonl"
)

// Following a log as it is written: each Read hands over the lines ended
// since the last, a half-written line waiting for its '\n'; a file
// truncated (or replaced) is read from its start again.
func ExampleFollower() {
	dir, _ := os.MkdirTemp("", "follow")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "s.jsonl")
	in := &jsonl.Input{Tool: "tail", Stderr: os.Stdout}
	f := &jsonl.Follower{Name: name}
	look := func() {
		change := f.Look()
		fmt.Println([]string{"unchanged", "grown", "restarted", "gone"}[change])
		f.Read(in, func(r jsonl.Record) error {
			fmt.Printf("  %d: %s\n", r.Line, r.Data)
			return nil
		})
	}
	os.WriteFile(name, []byte("{\"a\":1}\r\n{\"b\""), 0o644)
	look()
	file, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	file.WriteString(":2}\n")
	file.Close()
	look()
	os.WriteFile(name, []byte("{\"c\":3}\n"), 0o644) // truncated, written again
	look()
	// Output:
	// grown
	//   1: {"a":1}
	// grown
	//   2: {"b":2}
	// restarted
	//   1: {"c":3}
}
