package jsonscan

import (
	"strings"
	"testing"
)

func TestEach(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // key=value;...
	}{
		{`{}`, ``},
		{` { "a" : 1 , "b":"x,}","c":{"d":[1,{"e":"}"}]},"f":null} `, `a=1;b="x,}";c={"d":[1,{"e":"}"}]};f=null;`},
		{`{"k\"ey":true,"a":1,"a":2}`, `k\"ey=true;a=1;a=2;`},
		{`[1]`, ``},
		{`"s"`, ``},
		{``, ``},
		{`{"a":1,`, `a=1;`}, // invalid: stops, no panic
		{`{"a"`, ``},        // invalid
		{`{"a":"unterminated`, ``},
	} {
		var b strings.Builder
		Each([]byte(tc.in), func(k, v []byte) bool {
			b.WriteString(string(k) + "=" + string(v) + ";")
			return true
		})
		if b.String() != tc.want {
			t.Errorf("Each(%s) = %s, want %s", tc.in, b.String(), tc.want)
		}
	}
	n := 0
	Each([]byte(`{"a":1,"b":2,"c":3}`), func(k, v []byte) bool { n++; return string(k) != "b" })
	if n != 2 {
		t.Errorf("Each went on after fn returned false: %d calls", n)
	}
}

// FuzzEach: on valid objects, Each sees exactly the members Members sees.
func FuzzEach(f *testing.F) {
	f.Add(`{"a":1,"b":[{"c":"}"}],"d":"\"","e":-1.5e3}`)
	f.Fuzz(func(t *testing.T, s string) {
		var want, got []string
		if Members([]byte(s), func(k, v []byte) { want = append(want, string(k)+"="+string(v)) }) != nil {
			Each([]byte(s), func(k, v []byte) bool { return true }) // no panic on anything
			return
		}
		Each([]byte(s), func(k, v []byte) bool { got = append(got, string(k)+"="+string(v)); return true })
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q: Each %q, Members %q", s, got, want)
		}
	})
}
