package jsonscan

import (
	"strings"
	"testing"
)

// Valid lines that sit on the edges of the scanner's fast loops and
// tables: a short string's tail with a space, a number next to a colon, a
// control character inside a long string, level 64 (the last level kept
// in a register) used as an object and then as an array.
func TestCheckEdges(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{"a":"x y"}`, true},
		{`{"a":" "}`, true},
		{`{"a":12:}`, false},
		{`{"a":1.5:}`, false},
		{`{"a":1e5:}`, false},
		{"{\"a\":\"abcdefgh\x01ijklmnop\"}", false},
		{"{\"a\":\"abcdefgh\x1fijklmnop\"}", false},
		{`{"a":` + strings.Repeat(`{"k":`, 62) + `{"x":1},"y":[1,2]` + strings.Repeat(`}`, 63), true},
		{`{"a":` + strings.Repeat(`{"k":`, 62) + `[1],"y":{"x":1,"z":2}` + strings.Repeat(`}`, 63), true},
	}
	for _, tt := range tests {
		err := Check([]byte(tt.in))
		if (err == nil) != tt.ok {
			t.Errorf("Check(%.60q) = %v, want ok %v", tt.in, err, tt.ok)
		}
		if (err == nil) != wantObject([]byte(tt.in)) {
			t.Errorf("Check(%.60q) = %v, encoding/json disagrees", tt.in, err)
		}
	}
}

// Every prefix of a valid line is invalid input (a line cut short): Check
// says why, and Lookup, Each and Unquote, which trust their input, stop
// without panicking, as their documentation promises.
func TestTruncatedLinesDoNotPanic(t *testing.T) {
	lines := []string{
		`{"kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls -la"},"n":[1,{"x":"y"}]},"ok":true,"e":null,"f":false}`,
		`{"a\"b":"c\\d\u00e9","k":{},"l":[],"m":-1.5e+3}`,
		` { "a" : { "b" : "\ud83d\ude00" } } `,
	}
	paths := [][]string{nil, {"kind"}, {"payload", "tool"}, {"payload", "args", "command"}, {"a"}, {"a", "b"}, {"zz"}, {"k", "x"}}
	for _, line := range lines {
		for n := 0; n < len(line); n++ {
			data := []byte(line[:n])
			data = data[:n:n]
			if strings.TrimSpace(line[:n]) != strings.TrimSpace(line) && Check(data) == nil {
				t.Errorf("Check(%q) = nil for a cut line", data)
			}
			for _, p := range paths {
				Lookup(data, p...)
			}
			Each(data, func(k, v []byte) bool { return true })
			Unquote(nil, data)
			if i := strings.IndexByte(line[:n], '"'); i >= 0 {
				Unquote(nil, data[i:])
				StringEquals(data[i:], "x")
			}
		}
	}
	for _, s := range []string{`"\ud800\"`, `"\ud800\u"`, `"\ud800\u12"`, `"\"`, `"\u00"`} {
		if out, ok := Unquote(nil, []byte(s)); ok {
			t.Errorf("Unquote(%s) = %q, ok; want not ok", s, out)
		}
	}
}

// At each step of a Lookup the last member of a name wins, whatever the
// earlier ones held, an empty object included.
func TestLookupAfterEmptyObject(t *testing.T) {
	for _, tt := range []struct {
		in    string
		path  []string
		want  string
		found bool
	}{
		{`{"a":{},"a":{"x":1}}`, []string{"a", "x"}, "1", true},
		{`{"a":{ },"b":{"x":2}}`, []string{"b", "x"}, "2", true},
		{`{"a":{"x":1},"a":{}}`, []string{"a", "x"}, "", false},
		{`  `, nil, "", false},
		{` {} `, nil, "{}", true},
	} {
		got, found := Lookup([]byte(tt.in), tt.path...)
		if string(got) != tt.want || found != tt.found {
			t.Errorf("Lookup(%s, %q) = %q, %v; want %q, %v", tt.in, tt.path, got, found, tt.want, tt.found)
		}
	}
}

// OffsetOf finds a sub-slice wherever it ends, and refuses one that runs
// past data.
func TestOffsetOfEdges(t *testing.T) {
	data := []byte(`{"a":1}`)
	if v, _ := Lookup(data); OffsetOf(data, v) != 0 {
		t.Errorf("OffsetOf(data, data) = %d, want 0", OffsetOf(data, v))
	}
	if got := OffsetOf(data, data[6:]); got != 6 {
		t.Errorf("OffsetOf of the last byte = %d, want 6", got)
	}
	buf := make([]byte, 20)
	if got := OffsetOf(buf[:10], buf[5:20]); got != -1 {
		t.Errorf("OffsetOf of a slice running past data = %d, want -1", got)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Object: "object", Kind(8): "invalid", Kind(255): "invalid"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
