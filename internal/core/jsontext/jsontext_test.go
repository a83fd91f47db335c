package jsontext

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/jsonscan"
)

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"a\nb\tc\rd", `"a\nb\tc\rd"`},
		{"\x00\x01\x1b[31m", `"\u0000\u0001\u001b[31m"`},
		{"a\nb\x7f<\u2028\xff", `"a\nb\u007f<\u2028\ufffd"`},
		{"\u2029 \u009b2J \u0085", `"\u2029 \u009b2J \u0085"`},
		{"<script>&</script>", `"<script>&</script>"`},
		{"héllo → 世界 🎉", `"héllo → 世界 🎉"`},
		{"\xe2\x82", `"\ufffd\ufffd"`},           // a cut rune: each byte
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // a surrogate is not UTF-8
		{"a\xc3", `"a\ufffd"`},                   // a two-byte rune cut at the end
		{"\xc3", `"\ufffd"`},
	} {
		if got := string(AppendString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got := string(AppendString([]byte("x"), []byte(tc.in))); got != "x"+tc.want {
			t.Errorf("AppendString([]byte %q) = %s, want x%s", tc.in, got, tc.want)
		}
	}
}

// TestAppendStringShortcuts checks AppendString's byte-level shortcuts for
// two- and three-byte runes against the policy applied rune by rune, on
// every lead byte followed by bytes around the continuation range (where
// C1 controls, U+2028/9, overlong forms, surrogates and cut runes lie).
func TestAppendStringShortcuts(t *testing.T) {
	var tails []byte
	for c := 0x7e; c <= 0xc1; c++ {
		tails = append(tails, byte(c))
	}
	var in [4]byte
	in[3] = 'x'
	for b0 := 0x80; b0 <= 0xff; b0++ {
		in[0] = byte(b0)
		for _, b1 := range tails {
			in[1] = b1
			for _, b2 := range tails {
				in[2] = b2
				s := string(in[:])
				if got, want := string(AppendString(nil, s)), refQuote(s); got != want {
					t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

// refQuote is the quoting policy written plainly, rune by rune.
func refQuote(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == '\u2028', r == '\u2029':
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(append(b, '"'))
}

// FuzzAppendString checks the policy against encoding/json: the same text
// comes back, and nothing a terminal would act on is left raw.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\nb\x7f<\u2028\xff", "\u009b", "\xed\xa0\x80", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q quoted as %s: not JSON: %v", s, out, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		json.Unmarshal(ref, &want)
		if got != want {
			t.Fatalf("%q: decodes to %q, encoding/json gives %q", s, got, want)
		}
		if !utf8.Valid(out) {
			t.Fatalf("%q quoted as invalid UTF-8 %q", s, out)
		}
		for _, r := range string(out) {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("%q quoted with a raw %U: %q", s, r, out)
			}
		}
	})
}

func TestParseFixed(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"0", 6, 0, true},
		{"1", 0, 1, true},
		{"9", 2, 900, true},
		{"19.95", 2, 1995, true},
		// plain digits that fit are exact, on the edges of the overflow checks
		{"922337203685477580", 0, 922337203685477580, true},
		{"922337203685477580", 1, 9223372036854775800, true},
		{"9007199254.5", 9, 9007199254500000000, true},
		// through float64: 2^63 does not fit, -2^63 does
		{"9223372036854775808e0", 0, 0, false},
		{"-9223372036854775808e0", 0, math.MinInt64, true},
		{"1.5", 9, 1500000000, true},
		{"0.000000001", 9, 1, true},
		{"0.0000000019", 9, 1, true}, // digits past the scale are cut
		{"-2.25", 2, -225, true},
		{"1758800000.123456", 6, 1758800000123456, true},
		{"1e3", 3, 1000000, true},
		{"1.5E-3", 6, 1500, true},
		{"12345678901234567890", 0, 0, false}, // past int64
		{"1e30", 0, 0, false},
		{"", 0, 0, false},
		{"-", 0, 0, false},
		{"1.2.3", 3, 0, false},
		{`"1"`, 0, 0, false},
		{"null", 0, 0, false},
	} {
		got, ok := ParseFixed([]byte(tc.in), tc.scale)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseFixed(%q, %d) = %d, %v; want %d, %v", tc.in, tc.scale, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAppendFixed(t *testing.T) {
	for _, tc := range []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 9, "0"},
		{1500000000, 9, "1.5"},
		{1, 9, "0.000000001"},
		{-225, 2, "-2.25"},
		{-5, 3, "-0.005"},
		{42, 0, "42"},
		{1758800000123456, 6, "1758800000.123456"},
		{math.MinInt64, 9, "-9223372036.854775808"},
	} {
		if got := string(AppendFixed(nil, tc.v, tc.scale)); got != tc.want {
			t.Errorf("AppendFixed(%d, %d) = %s, want %s", tc.v, tc.scale, got, tc.want)
		}
	}
}

// FuzzFixed: what AppendFixed writes, ParseFixed reads back exactly.
func FuzzFixed(f *testing.F) {
	f.Add(int64(1500000000), 9)
	f.Add(int64(-1), 6)
	f.Fuzz(func(t *testing.T, v int64, scale int) {
		if scale < 0 {
			scale = -scale
		}
		scale %= MaxScale + 1
		if v == math.MinInt64 {
			v++
		}
		s := AppendFixed(nil, v, scale)
		got, ok := ParseFixed(s, scale)
		if !ok || got != v {
			t.Fatalf("AppendFixed(%d, %d) = %s, read back as %d, %v", v, scale, s, got, ok)
		}
	})
}

// exactFixedDigits reads s as ParseFixed should, exactly (math/big),
// with the number of digits the value is made of; decided is false where
// ParseFixed goes through float64 (an exponent, a value past int64),
// which the test leaves to the checked path.
func exactFixedDigits(s string, scale int) (v int64, ok, decided bool, ndigits int) {
	digits := func(d string) bool {
		for _, c := range d {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	neg := strings.HasPrefix(s, "-")
	num := strings.TrimPrefix(s, "-")
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		whole, frac, _ := strings.Cut(num[:i], ".")
		if whole != "" && digits(whole) && digits(frac) {
			return 0, false, false, 0
		}
		num = num[:i] + "x" // not a number: refused like any other byte
	}
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" || !digits(whole) || !digits(frac) {
		return 0, false, true, 0
	}
	frac = (frac + strings.Repeat("0", scale))[:scale]
	var n big.Int
	n.SetString(whole+frac, 10)
	if !n.IsInt64() {
		return 0, false, false, 0
	}
	v = n.Int64()
	if neg {
		v = -v
	}
	return v, true, true, len(strings.TrimLeft(whole+frac, "0"))
}

// The short path (18 bytes at most, no check digit by digit) reads the
// exact value, for any bytes and scale; where the value goes through
// float64 it reads what the checked path reads.
func FuzzShortFixed(f *testing.F) {
	for _, s := range []string{"1793494988.327", "-0.5", "1.", "-", "999999999999999999", "99999999999.999999", "1e3", "0.1234567891", "12a", ".5", ""} {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, s string, scale int) {
		if len(s) > 18 {
			s = s[:18]
		}
		if scale < 0 {
			scale = -scale
		}
		scale %= MaxScale + 1
		v, ok := parseShortFixed([]byte(s), scale)
		w, wok, decided, digits := exactFixedDigits(s, scale)
		if decided && digits <= 16 {
			// the checked path is exact too where its check never trips
			if l, lok := parseLongFixed([]byte(s), scale); l != w || lok != wok {
				t.Fatalf("%q at scale %d: checked path %d, %v; want %d, %v", s, scale, l, lok, w, wok)
			}
		}
		if !decided {
			w, wok = parseLongFixed([]byte(s), scale)
		}
		if v != w || ok != wok {
			t.Fatalf("%q at scale %d: short path %d, %v; want %d, %v", s, scale, v, ok, w, wok)
		}
	})
}

func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		start string
		n     int
		want  string
	}{
		{"0", 0, "0"},
		{"000", 0, "0"},
		{"0", 1, "1"},
		{"9", 1, "10"},
		{"007", 3, "10"},
		{"99999999999999999999", 1, "100000000000000000000"},
		{"18446744073709551615", 2, "18446744073709551617"},
	} {
		c := NewCounter([]byte(tc.start))
		for range tc.n {
			c.Inc()
		}
		if got := string(c.Bytes()); got != tc.want {
			t.Errorf("%s + %d = %s, want %s", tc.start, tc.n, got, tc.want)
		}
	}
	// Counting a long way agrees with ordinary arithmetic, across Set.
	c := NewCounter([]byte("0"))
	for i := 1; i <= 12345; i++ {
		c.Inc()
		if i == 999 {
			c.Set([]byte("99998"))
		}
	}
	if got := string(c.Bytes()); got != "111344" {
		t.Errorf("counted to %s, want 111344", got)
	}
	var z Counter // ready to use: Inc takes it to 1
	if z.Inc(); string(z.Bytes()) != "1" {
		t.Errorf("zero Counter + 1 = %q, want 1", z.Bytes())
	}
}

func TestIsDigits(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "0123": true, "9": true, "0123456789": true, "/": false, ":": false, "": false, "-1": false, "1.0": false, "１": false} {
		if got := IsDigits(s); got != want {
			t.Errorf("IsDigits(%q) = %v", s, got)
		}
	}
}

// BenchmarkAppendString quotes the strings evtools writes itself: names
// and ids (ASCII), text in other scripts, and text full of escapes.
func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", "r_5f3a9c01_12 code-reviewer tool_execution_update"},
		{"utf8", "prüfe bitte, ob die Umlaute im Export korrekt sind: レポートの文字化けを直して"},
		{"escapes", "line 1\n\tline \"2\"\x1b[31m red \u2028 C:\\path\x7f"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 256)
			in := []byte(bc.s)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendString(buf[:0], in)
			}
		})
	}
}

func TestAppendEscape(t *testing.T) {
	for c, want := range map[byte]string{
		'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`,
		0: `\u0000`, 0x01: `\u0001`, 0x1f: `\u001f`, '\b': `\u0008`, 0x7f: `\u007f`,
	} {
		if got := string(AppendEscape([]byte("x"), c)); got != "x"+want {
			t.Errorf("AppendEscape(%#x) = %q, want %q", c, got, "x"+want)
		}
	}
}

// What AppendString writes for valid UTF-8 is canonical, and a canonical
// string is what AppendString writes for its text: copying it is quoting
// it again. (Invalid UTF-8 is written as \ufffd, which reads back as
// U+FFFD, written as it is: not the same bytes.)
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"", "plain text", `tab	"quote" \ back`, "é ü 日本", "\x00\x1f\x7f\u0085\u2028", "\xff bad", "a\u00e9b",
		`"a\nb"`, `"\u00e9"`, `"\u001B"`, `"\u001b"`, `"\/"`, `"\b"`, `"\ud83d\ude00"`, `"x"y"`, `"abcdefgh\"ijklmnop"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q := AppendString(nil, s); utf8.ValidString(s) && !Canonical(q) {
			t.Fatalf("AppendString(%q) = %s, not canonical", s, q)
		}
		var text string
		if json.Unmarshal([]byte(s), &text) != nil {
			return
		}
		if again := AppendString(nil, text); Canonical([]byte(s)) != (string(again) == s) {
			t.Fatalf("%s: canonical %v, but AppendString of its text is %s", s, Canonical([]byte(s)), again)
		}
		// a string a check finds plain is canonical (evimport copies it
		// without a second look); long enough to be noted
		long := `"` + strings.Repeat("0123456789", 7) + s[1:]
		line := []byte(`{"a":{"b":` + long + `}}`)
		tape := jsonscan.Tape{NotePlain: true}
		if jsonscan.NestedSpans(line, func(k, v []byte) {}, &jsonscan.Inner{Spans: make([]jsonscan.Span, 0, 4), Deep: &tape}) == nil &&
			tape.Plain(line, line[10:10+len(long)]) && !Canonical([]byte(long)) {
			t.Fatalf("%s: plain, not canonical", long)
		}
	})
}

// BenchmarkCanonical checks tool outputs as evimport meets them, against
// decoding and quoting again, which a canonical string spares.
func BenchmarkCanonical(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"code", strings.Repeat("    41\t\tif err != nil {\n\t\t\treturn fmt.Errorf(\"read %s: %w\", name, err)\n", 40)},
		{"prose", strings.Repeat("The test reads testdata/cart.json, which git ignores: a fresh clone has none. ", 40)},
		{"utf8", strings.Repeat("Größe der Ausgabe: 1,2 MiB — fertig; レポートの文字化け\n", 40)},
	} {
		q := AppendString(nil, bc.s)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				if !Canonical(q) {
					b.Fatal("not canonical")
				}
			}
		})
		b.Run(bc.name+"-requote", func(b *testing.B) {
			var text []byte
			buf := make([]byte, 0, 2*len(q))
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				text, _ = jsonscan.Unquote(text[:0], q)
				buf = AppendString(buf[:0], text)
			}
		})
	}
}

// JSON copied from the input reaches a terminal without its DEL and C1
// controls raw, and decodes to the same value.
func TestEscapeControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":"plain é"}`, `{"a":"plain é"}`},
		{"{\"a\":\"x\u009by\x7fz\"}", `{"a":"x\u009by\u007fz"}`},
		{"[\"\u0080\",\"\u009f\",\"\u00a0\"]", "[\"\\u0080\",\"\\u009f\",\"\u00a0\"]"},
	} {
		got := EscapeControls([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("EscapeControls(%q) = %q, want %q", c.in, got, c.want)
		}
		var a, b any
		if json.Unmarshal([]byte(c.in), &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("EscapeControls(%q) = %q: not the same value", c.in, got)
		}
	}
}
