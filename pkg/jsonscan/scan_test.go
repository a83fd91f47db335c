package jsonscan

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckValid(t *testing.T) {
	for _, s := range []string{
		`{}`,
		" \t\r\n{ \t\r\n} \t\r\n",
		`{"a":1}`,
		`{"a":-0.5e+10,"b":0,"c":-0,"d":1E-07,"e":123456789012345678901234567890}`,
		`{"a":true,"b":false,"c":null}`,
		`{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`,
		`{"a":"\uD83D","b":"\uDE00x"}`,     // lone surrogates: accepted, decoded as U+FFFD
		"{\"a\":\"\xff\xfe\xed\xa0\x80\"}", // invalid UTF-8 inside a string is accepted
		"{\"\xc3\xa9\":\"\u2028\"}",
		`{"a":[],"b":{},"c":[[]],"d":[{}],"e":[1,"x",null,{"f":[true]}]}`,
		`{"a" : 1 , "b" : [ 1 , 2 ] }`,
		`{"a":1,"a":2}`,
		`{"":""}`,
	} {
		if err := Check([]byte(s)); err != nil {
			t.Errorf("Check(%q) = %v, want nil", s, err)
		}
		if !wantObject([]byte(s)) {
			t.Errorf("test is wrong: encoding/json rejects %q", s)
		}
	}
}

// checkErrors are lines Check refuses, with the message and the offset it
// gives.
var checkErrors = []struct {
	in     string
	msg    string
	offset int
}{
	{``, "empty line", 0},
	{" \t\r\n", "empty line", 0},
	{`[1,2]`, "not a JSON object: array", 0},
	{`  [`, "not a JSON object: array", 2},
	{`"{}"`, "not a JSON object: string", 0},
	{`-12.5`, "not a JSON object: number", 0},
	{`0`, "not a JSON object: number", 0},
	{`true`, "not a JSON object: boolean", 0},
	{`false `, "not a JSON object: boolean", 0},
	{`null`, "not a JSON object: null", 0},
	{`nope`, "invalid character 'o' at column 2", 1},
	{`-x`, "invalid character 'x' at column 2", 1},
	{`hello`, "invalid character 'h' at column 1", 0},
	{`}`, "invalid character '}' at column 1", 0},
	{"\x00{}", `invalid character '\x00' at column 1`, 0},
	{"\v{}", `invalid character '\v' at column 1`, 0},
	{"\u00a0{}", `invalid character '\u00a0' at column 1`, 0},
	{"\xff{}", `invalid character '\xff' at column 1`, 0},
	{"\xef\xbb\xbf{}", "unexpected byte order mark (U+FEFF) at column 1", 0},
	{`{`, "unexpected end of input (truncated line?)", 1},
	{`{"a`, "unexpected end of input (truncated line?)", 3},
	{`{"a\`, "unexpected end of input (truncated line?)", 4},
	{`{"a\u00`, "unexpected end of input (truncated line?)", 7},
	{`{"a"`, "unexpected end of input (truncated line?)", 4},
	{`{"a":`, "unexpected end of input (truncated line?)", 5},
	{`{"a":1`, "unexpected end of input (truncated line?)", 6},
	{`{"a":-`, "unexpected end of input (truncated line?)", 6},
	{`{"a":1.`, "unexpected end of input (truncated line?)", 7},
	{`{"a":1e`, "unexpected end of input (truncated line?)", 7},
	{`{"a":1e-`, "unexpected end of input (truncated line?)", 8},
	{`{"a":tr`, "unexpected end of input (truncated line?)", 7},
	{`{"a":[1,`, "unexpected end of input (truncated line?)", 8},
	{`{"a":{"b":1}`, "unexpected end of input (truncated line?)", 12},
	{`{"a":1,`, "unexpected end of input (truncated line?)", 7},
	{`{"a":1} x`, "invalid character after top-level value at column 9", 8},
	{`{}{}`, "invalid character after top-level value at column 3", 2},
	{"{}\n\x00", "invalid character after top-level value at column 4", 3},
	{`{a:1}`, "invalid character 'a' at column 2", 1},
	{`{'a':1}`, `invalid character '\'' at column 2`, 1},
	{`{"a" 1}`, "invalid character '1' at column 6", 5},
	{`{"a":1,}`, "invalid character '}' at column 8", 7},
	{`{"a":1 "b":2}`, `invalid character '"' at column 8`, 7},
	{`{"a":[1,]}`, "invalid character ']' at column 9", 8},
	{`{"a":[1 2]}`, "invalid character '2' at column 9", 8},
	{`{"a":[}`, "invalid character '}' at column 7", 6},
	{`{"a":{]}`, "invalid character ']' at column 7", 6},
	{`{"a":[1}`, "invalid character '}' at column 8", 7},
	{`{"a":{"b":1]}`, "invalid character ']' at column 12", 11},
	{`{"a":01}`, "invalid character '1' at column 7", 6},
	{`{"a":-01}`, "invalid character '1' at column 8", 7},
	{`{"a":+1}`, "invalid character '+' at column 6", 5},
	{`{"a":.5}`, "invalid character '.' at column 6", 5},
	{`{"a":5.}`, "invalid character '}' at column 8", 7},
	{`{"a":1e}`, "invalid character '}' at column 8", 7},
	{`{"a":1.5e+x}`, "invalid character 'x' at column 11", 10},
	{`{"a":NaN}`, "invalid character 'N' at column 6", 5},
	{`{"a":-Infinity}`, "invalid character 'I' at column 7", 6},
	{`{"a":0x1F}`, "invalid character 'x' at column 7", 6},
	{`{"a":tru}`, "invalid character '}' at column 9", 8},
	{`{"a":True}`, "invalid character 'T' at column 6", 5},
	{`{"a":nul}`, "invalid character '}' at column 9", 8},
	{`{"a":"\x41"}`, "invalid character 'x' at column 8", 7},
	{`{"a":"\'"}`, `invalid character '\'' at column 8`, 7},
	{`{"a":"\u00G1"}`, "invalid character 'G' at column 11", 10},
	{"{\"a\":\"x\ty\"}", `invalid character '\t' at column 8`, 7},
	{"{\"a\":\"\n\"}", `invalid character '\n' at column 7`, 6},
	{"{\"a\":\"\x00\"}", `invalid character '\x00' at column 7`, 6},
	{"{\"a\":1}\xef\xbb\xbf", "invalid character after top-level value at column 8", 7},
	{"{\"a\":\xff}", `invalid character '\xff' at column 6`, 5},
	{"{\"a\":\u00e9}", `invalid character 'é' at column 6`, 5},
	{"{\"a\":1,\u2028\"b\":2}", `invalid character '\u2028' at column 8`, 7},
	{"{\f}", `invalid character '\f' at column 2`, 1},
	{`{"a":` + strings.Repeat(`"x",`, 0) + strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth) + `}`,
		"nesting deeper than 10000 levels", 5 + MaxDepth - 1},
	{`{"a":` + strings.Repeat(`{"a":`, MaxDepth) + `0` + strings.Repeat(`}`, MaxDepth) + `}`,
		"nesting deeper than 10000 levels", 5 + 5*(MaxDepth-1)},
}

func TestCheckErrors(t *testing.T) {
	for _, tc := range checkErrors {
		err := Check([]byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Check(%.40q) = %v, want *SyntaxError %q", tc.in, err, tc.msg)
			continue
		}
		if se.Msg != tc.msg || se.Error() != tc.msg || se.Offset != tc.offset {
			t.Errorf("Check(%.40q) = %q at offset %d, want %q at %d", tc.in, se.Msg, se.Offset, tc.msg, tc.offset)
		}
		if wantObject([]byte(tc.in)) {
			t.Errorf("test is wrong: encoding/json accepts %.40q as an object", tc.in)
		}
		merr := Members([]byte(tc.in), func(k, v []byte) {})
		if merr == nil || merr.Error() != err.Error() {
			t.Errorf("Members(%.40q) = %v, Check = %v", tc.in, merr, err)
		}
	}
}

// TestDepth checks the nesting limit at its edge, with objects and arrays
// mixed so that the kind of every level, including those past the first 64,
// has to be remembered.
func TestDepth(t *testing.T) {
	nest := func(levels int) string {
		var b strings.Builder
		b.WriteString(`{"a":`)
		for i := 1; i < levels; i++ {
			if i%3 == 0 {
				b.WriteString(`[`)
			} else {
				b.WriteString(`{"k":`)
			}
		}
		b.WriteString(`1`)
		for i := levels - 1; i >= 1; i-- {
			if i%3 == 0 {
				b.WriteString(`]`)
			} else {
				b.WriteString(`}`)
			}
		}
		b.WriteString(`}`)
		return b.String()
	}
	for _, levels := range []int{1, 2, 63, 64, 65, 66, 127, 128, 129, 1000, MaxDepth - 1, MaxDepth, MaxDepth + 1, 50000} {
		in := []byte(nest(levels))
		err := Check(in)
		if (err == nil) != (levels <= MaxDepth) {
			t.Errorf("Check(%d levels) = %v", levels, err)
		}
		if (err == nil) != wantObject(in) {
			t.Errorf("Check(%d levels) = %v, encoding/json disagrees", levels, err)
		}
		if err != nil && err.Error() != "nesting deeper than 10000 levels" {
			t.Errorf("Check(%d levels) = %v", levels, err)
		}
	}
	// A closer of the wrong kind deep down is found.
	bad := []byte(strings.Replace(nest(200), "]", "}", 1))
	if err := Check(bad); err == nil {
		t.Errorf("Check accepted a mismatched closer at depth")
	}
	// After a deep line, a shallow one starts clean (the pooled stack holds no state).
	if err := Check([]byte(`{"a":[{"b":[]}]}`)); err != nil {
		t.Errorf("Check after deep line: %v", err)
	}
}

func TestMembers(t *testing.T) {
	type kv struct{ k, v string }
	for _, tc := range []struct {
		in   string
		want []kv
	}{
		{`{}`, nil},
		{` { "a" : 1 , "b" : [ 1 , 2 ] } `, []kv{{"a", "1"}, {"b", "[ 1 , 2 ]"}}},
		{`{"a":1,"a":"two","a":{"x":[3]}}`, []kv{{"a", "1"}, {"a", `"two"`}, {"a", `{"x":[3]}`}}},
		{`{"k\u0069nd":"tool_call","p":{"kind":"x"}}`, []kv{{`k\u0069nd`, `"tool_call"`}, {"p", `{"kind":"x"}`}}},
		{`{"n":null,"t":true,"f":false,"s":"x\"y","e":{},"a":[]}`,
			[]kv{{"n", "null"}, {"t", "true"}, {"f", "false"}, {"s", `"x\"y"`}, {"e", "{}"}, {"a", "[]"}}},
		{`{"a":-1.5e3}`, []kv{{"a", "-1.5e3"}}},
	} {
		var got []kv
		data := []byte(tc.in)
		err := Members(data, func(k, v []byte) {
			got = append(got, kv{string(k), string(v)})
			if off := OffsetOf(data, v); off < 0 || string(data[off:off+len(v)]) != string(v) {
				t.Errorf("OffsetOf(%q) = %d", v, off)
			}
		})
		if err != nil {
			t.Errorf("Members(%q) = %v", tc.in, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("Members(%q) = %q, want %q", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Members(%q) = %q, want %q", tc.in, got, tc.want)
				break
			}
		}
	}
}

// TestRewriteInPlace is what evcursor does: find seq's value by offset and
// splice a new number in.
func TestRewriteInPlace(t *testing.T) {
	line := []byte(`{"seq":12,"ts":1.5,"kind":"x","payload":{"seq":99}}`)
	start, end := -1, -1
	if err := Members(line, func(k, v []byte) {
		if KeyIs(k, "seq") {
			start = OffsetOf(line, v)
			end = start + len(v)
		}
	}); err != nil {
		t.Fatal(err)
	}
	out := string(line[:start]) + "7" + string(line[end:])
	if want := `{"seq":7,"ts":1.5,"kind":"x","payload":{"seq":99}}`; out != want {
		t.Errorf("rewrite = %s, want %s", out, want)
	}
}

func TestOffsetOf(t *testing.T) {
	data := []byte(`{"a":"xyz"}`)
	if got := OffsetOf(data, data[5:10]); got != 5 {
		t.Errorf("OffsetOf = %d, want 5", got)
	}
	if got := OffsetOf(data, data[11:]); got != 11 {
		t.Errorf("OffsetOf(end) = %d, want 11", got)
	}
	other := make([]byte, 100)
	if got := OffsetOf(data, other); got != -1 {
		t.Errorf("OffsetOf(unrelated larger slice) = %d, want -1", got)
	}
}

func TestNoAllocs(t *testing.T) {
	line := []byte(benchLines[0])
	deep := []byte(`{"a":` + strings.Repeat(`[`, 500) + strings.Repeat(`]`, 500) + `}`)
	sink := 0
	fn := func(k, v []byte) { sink += len(v) }
	for name, f := range map[string]func(){
		"Check":        func() { _ = Check(line) },
		"CheckDeep":    func() { _ = Check(deep) },
		"Members":      func() { _ = Members(line, fn) },
		"Lookup":       func() { _, _ = Lookup(line, "payload", "args", "command") },
		"KeyIs":        func() { _ = KeyIs([]byte(`k\u0069nd`), "kind") },
		"StringEquals": func() { _ = StringEquals([]byte(`"tool\u005fcall"`), "tool_call") },
		"Unquote":      func() { buf := make([]byte, 0, 64); _, _ = Unquote(buf[:0], []byte(`"a\nb\u00e9"`)) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %.1f times per call", name, n)
		}
	}
}

// TestDigitsEnd: the word-at-a-time digit run stops where a byte loop
// does, for every byte value at every place in and across words (0xfa and
// above carry into the next byte when 6 is added).
func TestDigitsEnd(t *testing.T) {
	for b := range 256 {
		for p := range 18 {
			data := append([]byte("12345678901234567890")[:p:p], byte(b), '7', 0xff, '1')
			want := 0
			for want < len(data) && data[want] >= '0' && data[want] <= '9' {
				want++
			}
			if got := digitsEnd(data, 0); got != want {
				t.Fatalf("digitsEnd(%q) = %d, want %d", data, got, want)
			}
		}
	}
}
