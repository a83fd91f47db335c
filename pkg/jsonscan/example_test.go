package jsonscan_test

import (
	"fmt"

	"github.com/evtools/evtools/pkg/jsonscan"
)

func ExampleCheck() {
	for _, line := range []string{
		`{"seq":1,"kind":"turn_start"}`,
		`[1,2,3]`,
		`{"seq":1,"kind":"turn_start"`,
		`{"seq":1,"kind":turn_start}`,
		`{"seq":1} {"seq":2}`,
	} {
		fmt.Println(jsonscan.Check([]byte(line)))
	}
	// Output:
	// <nil>
	// not a JSON object: array
	// unexpected end of input (truncated line?)
	// invalid character 'u' at column 18
	// invalid character after top-level value at column 11
}

// Rewriting seq in place, as evcursor does: the value is a sub-slice of the
// line, so its offset says where to splice.
func ExampleMembers() {
	line := []byte(`{"seq":12,"kind":"tool_call","payload":{"seq":3}}`)
	var start, end int
	err := jsonscan.Members(line, func(key, value []byte) {
		if jsonscan.KeyIs(key, "seq") && jsonscan.KindOf(value) == jsonscan.Number {
			start = jsonscan.OffsetOf(line, value)
			end = start + len(value)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := append(append(append([]byte{}, line[:start]...), "101"...), line[end:]...)
	fmt.Println(string(out))
	// Output: {"seq":101,"kind":"tool_call","payload":{"seq":3}}
}

func ExampleLookup() {
	line := []byte(`{"kind":"tool_call","payload":{"tool":"bash","args":{"command":"uname -a"}}}`)
	v, ok := jsonscan.Lookup(line, "payload", "args", "command")
	s, _ := jsonscan.Unquote(nil, v)
	fmt.Println(ok, string(v), string(s))
	kind, _ := jsonscan.Lookup(line, "kind")
	fmt.Println(jsonscan.StringEquals(kind, "tool_call"))
	// Output:
	// true "uname -a" uname -a
	// true
}
