package jsonscan

import (
	"encoding/json"
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

func TestElements(t *testing.T) {
	for in, want := range map[string]string{
		`[]`:   "",
		` [ ]`: "",
		` [ 1 , "a,]" , {"b":[1,2]}, [[]], null ] `: `1|"a,]"|{"b":[1,2]}|[[]]|null`,
		`["\"",  "\\"]`:       `"\""|"\\"`,
		`["a\\", "b"]`:        `"a\\"|"b"`,
		`["x\\\"y", "\\\\"]`:  `"x\\\"y"|"\\\\"`,
		`[-1.5e3,true,false]`: `-1.5e3|true|false`,
		`{"not":"an array"}`:  "",
		`"s"`:                 "",
		``:                    "",
		`[1,`:                 "1", // invalid: stops, no panic
		`["unterminated`:      "",
	} {
		var got []string
		Elements([]byte(in), func(v []byte) bool { got = append(got, string(v)); return true })
		if strings.Join(got, "|") != want {
			t.Errorf("Elements(%s) = %q, want %q", in, got, want)
		}
	}
	n := 0
	Elements([]byte(`[1,2,3]`), func(v []byte) bool { n++; return string(v) != "2" })
	if n != 2 {
		t.Errorf("Elements went on after fn returned false: %d calls", n)
	}
}

// FuzzElements: on a valid array, Elements sees exactly the elements
// encoding/json does, byte for byte.
func FuzzElements(f *testing.F) {
	f.Add(`[1,"a,]",{"b":[1,{"c":"]"}]}, [[]] ,null,"\"","\\"]`)
	f.Fuzz(func(t *testing.T, s string) {
		var want []json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil || !strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "[") {
			Elements([]byte(s), func([]byte) bool { return true }) // no panic on anything
			return
		}
		var got []string
		Elements([]byte(s), func(v []byte) bool { got = append(got, string(v)); return true })
		if len(got) != len(want) {
			t.Fatalf("%q: Elements %q, encoding/json %q", s, got, want)
		}
		for i := range got {
			if got[i] != string(want[i]) {
				t.Fatalf("%q: element %d is %q, encoding/json says %q", s, i, got[i], want[i])
			}
		}
	})
}

// StringEnd finds the quote that ends a string, past escapes, with or
// without the eight-byte steps, and says whether it passed an escape.
func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in      string // the content after the opening quote, and what follows
		end     int
		escaped bool
	}{
		{`"`, 1, false},
		{`abc",1`, 4, false},
		{`a\"b"`, 5, true},
		{`a\\"b"`, 4, true},
		{`\\\"x"`, 6, true},
		{`0123456789abcdef"`, 17, false},
		{`01234567\"9abcdef"x`, 18, true},
		{`0123456789abcdef\\"`, 19, true},
		{`no end`, -1, false},
		{`ends in \`, -1, true},
		{`0123456789 ends in \`, -1, true},
		{``, -1, false},
	} {
		end, escaped := StringEnd([]byte(tc.in), 0)
		if end != tc.end || escaped != tc.escaped {
			t.Errorf("StringEnd(%q) = %d, %v; want %d, %v", tc.in, end, escaped, tc.end, tc.escaped)
		}
	}
	if end, _ := StringEnd([]byte(`{"kind":"x"}`), 2); end != 7 {
		t.Errorf("StringEnd from an offset = %d, want 7", end)
	}
}

// FuzzObjects: on a valid array, Objects gives each element's members
// as Elements then Each do; on anything, it does not panic.
func FuzzObjects(f *testing.F) {
	f.Add(`[{"a":1,"b":{"c":"}"}},2,{},"s",{"d":[{"e":1}]} , { "f" : "\"" }]`)
	f.Add(`[{"stop":1,"after":2},{"x":3}]`)
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		Objects([]byte(s), func(c byte) { got = append(got, "|"+string(c)) }, func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			return string(k) != "stop"
		})
		var want []json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil || !strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "[") {
			return
		}
		var exp []string
		Elements([]byte(s), func(v []byte) bool {
			exp = append(exp, "|"+string(v[0]))
			if v[0] == '{' {
				Each(v, func(k, v []byte) bool {
					exp = append(exp, string(k)+"="+string(v))
					return string(k) != "stop"
				})
			}
			return true
		})
		if strings.Join(got, "\n") != strings.Join(exp, "\n") {
			t.Fatalf("%q: Objects %q, Elements and Each %q", s, got, exp)
		}
	})
}
