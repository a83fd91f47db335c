package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// sameTaped checks what a Tape says of every container of data below the
// levels NestedSpans reports (an array member of the line, anything
// inside a member of the line's object members) against Each and
// Elements walking it: the same members and elements, container by
// container.
func sameTaped(t *testing.T, data []byte, keys ...string) {
	t.Helper()
	tape := Tape{Keys: keys}
	in := Inner{Spans: make([]Span, 0, 8), Deep: &tape}
	if NestedSpans(data, func(key, value []byte) {}, &in) != nil || tape.full {
		return
	}
	var walk func(path string, v []byte, wanted bool)
	walk = func(path string, v []byte, wanted bool) {
		kind := KindOf(v)
		if kind != Object && kind != Array {
			return
		}
		spans, ok := tape.Container(data, v)
		if ok != wanted {
			t.Fatalf("%s: %s: on the tape %v, want %v", data, path, ok, wanted)
		}
		if !wanted {
			return
		}
		var got, want []string
		for _, sp := range spans {
			k := "[]"
			if sp.KeyStart >= 0 {
				k = string(data[sp.KeyStart:sp.KeyEnd])
			}
			got = append(got, k+"="+string(data[sp.ValueStart:sp.ValueEnd]))
		}
		var children [][]byte
		if kind == Object {
			Each(v, func(k, e []byte) bool {
				want = append(want, string(k)+"="+string(e))
				children = append(children, e)
				return true
			})
		} else {
			Elements(v, func(e []byte) bool {
				want = append(want, "[]="+string(e))
				children = append(children, e)
				return true
			})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: %s (-walked +taped):\n%s", data, path, diff)
		}
		for i, e := range children {
			walk(fmt.Sprintf("%s/%d", path, i), e, true)
		}
	}
	// the line's members are reported, not taped; so are the members of
	// its object members; an array member is taped
	Each(data, func(k, v []byte) bool {
		wanted := len(keys) == 0 || slices.Contains(keys, string(k))
		if KindOf(v) != Object {
			walk(string(k), v, wanted)
			return true
		}
		if _, ok := tape.Container(data, v); ok {
			t.Fatalf("%s: %s: a member of the line is on the tape", data, k)
		}
		Each(v, func(k2, v2 []byte) bool {
			walk(string(k)+"."+string(k2), v2, wanted)
			return true
		})
		return true
	})
}

func TestTape(t *testing.T) {
	for _, data := range []string{
		`{"toolCalls":[{"id":"a","result":[{"functionResponse":{"response":{"output":"x\"y"}}}]},{}],"n":1}`,
		`{"message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","input":{"command":"ls","deep":[[],{}]}}]}}`,
		`{ "a" : [ 1 , "two" , { "b" : [ true , null ] } ] , "c" : { "d" : { "e" : [ ] } } }`,
		`{"a":[],"b":{},"c":{"d":[]}}`,
	} {
		sameTaped(t, []byte(data))
		// only the members named are recorded
		sameTaped(t, []byte(data), "toolCalls", "a", "c")
	}
}

// A line that is not valid leaves no tape to read; one with more than a
// tape holds leaves none either, and the reader walks the values again.
func TestTapeNotRead(t *testing.T) {
	var tape Tape
	in := Inner{Spans: make([]Span, 0, 8), Deep: &tape}
	line := []byte(`{"a":[{"b":1},{"c":`)
	if NestedSpans(line, func(k, v []byte) {}, &in) == nil {
		t.Fatal("a cut line is valid")
	}
	big := []byte(`{"a":[` + strings.Repeat(`1,`, maxTapeSpans) + `1],"b":[[2]]}`)
	if err := NestedSpans(big, func(k, v []byte) {}, &in); err != nil {
		t.Fatal(err)
	}
	v, _ := Lookup(big, "b")
	if _, ok := tape.Container(big, v); ok {
		t.Fatal("a tape that overflowed is read")
	}
	small := []byte(`{"b":[[2]]}`)
	NestedSpans(small, func(k, v []byte) {}, &in)
	v, _ = Lookup(small, "b")
	if spans, ok := tape.Container(small, v); !ok || len(spans) != 1 || string(small[spans[0].ValueStart:spans[0].ValueEnd]) != "[2]" {
		t.Fatalf("the next line's tape: %v %v", spans, ok)
	}
	// a copy of the container elsewhere is not it
	if _, ok := tape.Container(small, []byte("[[2]]")); ok {
		t.Fatal("a copy of a container is read from the tape")
	}
}

func FuzzTape(f *testing.F) {
	for _, s := range []string{
		`{"toolCalls":[{"id":"a","result":[{"r":{"o":"x"}}]}]}`,
		`{"a":{"b":[{"c":{"d":1}}],"e":true}}`,
		`{"a":[[],[{}],{"b":[1,2]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameTaped(t, data)
		sameTaped(t, data, "a")
	})
}

// A tape holds no more than its bound while a line is scanned, not only
// after: a line of a few MB with millions of elements in one array
// (tapes are given to every line of a log) costs no more memory than a
// tape's room, as the bound says, not a span for each element first.
func TestTapeBoundWhileScanning(t *testing.T) {
	big := []byte(`{"message":{"content":[` + strings.Repeat(`0,`, 1<<20) + `0]},"data":[` + strings.Repeat(`[],`, 1<<19) + `[]]}`)
	tape := Tape{}
	in := Inner{Spans: make([]Span, 0, 8), Deep: &tape}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := NestedSpans(big, func(k, v []byte) {}, &in); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const room = 2 * maxTapeSpans * uint64(unsafe.Sizeof(Span{})+unsafe.Sizeof(tapeContainer{})+unsafe.Sizeof(openContainer{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*room {
		t.Fatalf("scanning a line of %d elements allocated %d bytes; a tape holds about %d", 3<<19, got, room)
	}
	v, _ := Lookup(big, "data")
	if _, ok := tape.Container(big, v); ok {
		t.Fatal("a tape that overflowed is read")
	}
}

// plainByHand is what Tape.Plain means, the long way: the string decoded
// by encoding/json and quoted again, escaping only what must be (\n, \r
// and \t by their short forms), is the same bytes, and none of its runes
// is one a careful writer escapes (a control, DEL, C1, U+2028/9).
func plainByHand(raw []byte) bool {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range text {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029':
			return false
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String() == string(raw)
}

// samePlain checks what a Tape says of every string value of data below
// the line's members: plain, as plainByHand finds it, when it is long
// enough to be noted; never for the line's own members, for keys, or
// with NotePlain unset.
func samePlain(t *testing.T, data []byte) {
	t.Helper()
	for _, note := range []bool{true, false} {
		tape := Tape{NotePlain: note}
		in := Inner{Spans: make([]Span, 0, 8), Deep: &tape}
		if NestedSpans(data, func(key, value []byte) {}, &in) != nil {
			return
		}
		var walk func(path string, v []byte, noted bool)
		walk = func(path string, v []byte, noted bool) {
			switch KindOf(v) {
			case String:
				want := noted && note && len(v) >= plainMin && plainByHand(v)
				if got := tape.Plain(data, v); got != want {
					t.Fatalf("%s: %s = %s: plain %v, want %v", data, path, v, got, want)
				}
			case Object:
				Each(v, func(k, e []byte) bool {
					if tape.Plain(data, k) {
						t.Fatalf("%s: %s: the key %s is plain", data, path, k)
					}
					walk(path+"."+string(k), e, true)
					return true
				})
			case Array:
				Elements(v, func(e []byte) bool {
					walk(path+"[]", e, true)
					return true
				})
			}
		}
		Each(data, func(k, v []byte) bool {
			if KindOf(v) == String {
				walk(string(k), v, false) // the line's own members are not noted
			} else {
				walk(string(k), v, true)
			}
			return true
		})
		// a copy of a plain string elsewhere is not it
		if s := bytes.Repeat([]byte("x"), plainMin); tape.Plain(data, append(append([]byte{'"'}, s...), '"')) {
			t.Fatal("a copy of a string is plain")
		}
	}
}

func TestPlain(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 5)
	for _, s := range []string{
		long, long + `\n\t\r \"quoted\" \\ back`, long + " é ü 日本 😀 \uFFFD",
		long + `\/`, long + `\b`, long + `\f`, long + `\u0041`, long + `\u001b`,
		long + "\x7f", long + "\u0085", long + "\u2028", long + "\u2029", long + "\xff", long + "\xc3", long + "\xe0\x80\x80",
		long + "\xed\xa0\x80", long + "\xc3\x28", long[:10],
	} {
		for _, line := range []string{
			`{"payload":{"output":"` + s + `"}}`,
			`{"message":{"content":[{"type":"text","text":"` + s + `"}]},"top":"` + s + `"}`,
			`{"a":["` + s + `",{"b":["` + s + `"]}]}`,
		} {
			samePlain(t, []byte(line))
		}
	}
}

func FuzzPlain(f *testing.F) {
	long := strings.Repeat("plain text ", 7)
	for _, s := range []string{long, long + `\n\"x\"`, long + "é日本", long + `\u00e9`, long + "\xff", long + "\u2028", long + `\/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		samePlain(t, []byte(`{"payload":{"output":"`+s+`","n":1},"x":[{"y":"`+s+`"}]}`))
	})
}
