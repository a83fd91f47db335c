package jsonscan

import "testing"

func TestLookup(t *testing.T) {
	const line = `{"seq":12,"kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls \"-la\"","n":[1,{"x":2}]},` +
		`"empty":{},"s":"}{][\\","nested":{"a":{"b":{"c":"deep"}}}},"dup":1,"dup":{"v":2},"k\u0069nd2":"esc"}`
	for _, tc := range []struct {
		path  []string
		want  string
		found bool
	}{
		{[]string{"seq"}, `12`, true},
		{[]string{"kind"}, `"tool_call"`, true},
		{[]string{"payload", "tool"}, `"bash"`, true},
		{[]string{"payload", "args", "command"}, `"ls \"-la\""`, true},
		{[]string{"payload", "args", "n"}, `[1,{"x":2}]`, true},
		{[]string{"payload", "args", "n", "x"}, ``, false}, // arrays are not descended
		{[]string{"payload", "empty"}, `{}`, true},
		{[]string{"payload", "empty", "a"}, ``, false},
		{[]string{"payload", "s"}, `"}{][\\"`, true},
		{[]string{"payload", "nested", "a", "b", "c"}, `"deep"`, true},
		{[]string{"payload", "nested", "a", "b", "c", "d"}, ``, false}, // a string is not an object
		{[]string{"seq", "x"}, ``, false},
		{[]string{"dup"}, `{"v":2}`, true}, // the last duplicate wins
		{[]string{"dup", "v"}, `2`, true},
		{[]string{"kind2"}, `"esc"`, true}, // keys compare unescaped
		{[]string{"missing"}, ``, false},
		{[]string{"payload", "missing"}, ``, false},
		{[]string{"tool"}, ``, false}, // nested keys are not top-level
		{nil, line, true},
	} {
		got, found := Lookup([]byte(" "+line+"\n"), tc.path...)
		if found != tc.found || string(got) != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tc.path, got, found, tc.want, tc.found)
		}
	}
}

func TestLookupShapes(t *testing.T) {
	for _, tc := range []struct {
		in, key, want string
		found         bool
	}{
		{`{ "a" : 1 , "b" : 2 }`, "b", "2", true},
		{"{\n\t\"a\"\n:\n[ 1 ]\n}", "a", "[ 1 ]", true},
		{`{"a":"x","a":null}`, "a", "null", true},
		{`{"b":{"a":1},"a":[]}`, "a", "[]", true},
		{`{"a":-1.5e3}`, "a", "-1.5e3", true},
		{`{}`, "a", "", false},
		{`[{"a":1}]`, "a", "", false},
		{`"a"`, "a", "", false},
		{``, "a", "", false},
		// Invalid input: no panic, no false hit past the damage.
		{`{"a":1`, "a", "", false},
		{`{"a":"x`, "a", "", false},
		{`{"a":[1,2`, "a", "", false},
		{`{"a"`, "a", "", false},
		{`{"a\`, "a", "", false},
		{`{a:1}`, "a", "", false},
	} {
		got, found := Lookup([]byte(tc.in), tc.key)
		if found != tc.found || string(got) != tc.want {
			t.Errorf("Lookup(%q, %q) = %q, %v; want %q, %v", tc.in, tc.key, got, found, tc.want, tc.found)
		}
	}
}

func TestKindOf(t *testing.T) {
	for in, want := range map[string]Kind{
		`{}`: Object, `[]`: Array, `"x"`: String, `true`: True, `false`: False, `null`: Null,
		`-1`: Number, `0`: Number, `9e9`: Number, ``: Invalid, `x`: Invalid, ` {}`: Invalid, `+1`: Invalid,
	} {
		if got := KindOf([]byte(in)); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", in, got, want)
		}
	}
	if Object.String() != "object" || Kind(200).String() != "invalid" {
		t.Errorf("Kind.String: %q %q", Object, Kind(200))
	}
}
