package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// tricky inputs shared by the fuzz corpora: edges of the grammar where a
// hand-written scanner and encoding/json could disagree.
var trickySeeds = []string{
	``, ` `, "\t\r\n", `{}`, ` {} `, "\n{}\n", `{`, `}`, `{}}`, `{}{}`, `{} {}`, `{},`,
	`[]`, `[{}]`, `"{}"`, `null`, `true`, `false`, `0`, `-0`, `1e5`, `nul`, `tru`, `-`, `--1`,
	`{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a"}`, `{"a":}`, `{"a" : 1 , "b" : 2}`, `{"a":1 "b":2}`,
	`{"a":[1,2,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":{"b":{"c":[[],{}]}}}`, `{"a":[}`, `{"a":{]}`,
	`{"a":0}`, `{"a":-0}`, `{"a":01}`, `{"a":-01}`, `{"a":+1}`, `{"a":.5}`, `{"a":5.}`, `{"a":5.e3}`,
	`{"a":1e}`, `{"a":1e+}`, `{"a":1E-07}`, `{"a":1.5e+300}`, `{"a":-}`, `{"a":-a}`, `{"a":1ee3}`,
	`{"a":NaN}`, `{"a":Infinity}`, `{"a":-Infinity}`, `{"a":0x10}`, `{"a":1_000}`,
	`{"a":true}`, `{"a":false}`, `{"a":null}`, `{"a":nulL}`, `{"a":True}`, `{"a":truee}`,
	`{"a":"\""}`, `{"a":"\\"}`, `{"a":"\/"}`, `{"a":"\b\f\n\r\t"}`, `{"a":"\'"}`, `{"a":"\x41"}`,
	`{"a":"\u0041"}`, `{"a":"\u004"}`, `{"a":"\u00G1"}`, `{"a":"\uD83D\uDE00"}`, `{"a":"\uD83D"}`,
	`{"a":"\uDE00"}`, `{"a":"\uD83D\u0041"}`, `{"a":"\uD83D\uD83D\uDE00"}`, `{"a":"\uD83Dx"}`,
	`{"a":"\uDE00\uD83D"}`, `{"a":"\u0000"}`, `{"\u006b\u0069nd":"x","kind":"y"}`,
	"{\"a\":\"\x00\"}", "{\"a\":\"\x1f\"}", "{\"a\":\"\x7f\"}", "{\"a\":\"\t\"}", "{\"a\":\"\n\"}",
	"{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\xc3\xa9\"}", "{\"a\":\"\xed\xa0\x80\"}",
	"{\"a\":\"\xef\xbf\xbd\"}", "{\"\xff\":1}", "{\"a\":\"\u2028\u2029\"}", "{\"a\":1}\xff",
	"\xef\xbb\xbf{}", "{\"a\":1}\x00", "{\x0b\"a\":1}", "{\f}", "{\"a\":1}\u00a0",
	`{"a":1,"a":2}`, `{"a":{"x":1},"a":{"y":2}}`, `{"a":[1],"b":{"a":3},"a":"last"}`,
	`{"":1}`, `{"a":"` + strings.Repeat("x", 100) + `"}`, `{"a":"` + strings.Repeat(`\"`, 20) + `"}`,
	`{"seq":12,"ts":1758800000.12,"run_id":"r_1","agent_id":"code-reviewer","kind":"tool_call","payload":{"step":1,"tool":"bash","args":{"argv":["ls","-la"]}}}`,
	`{"a":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`,
	`{"a":` + strings.Repeat(`{"b":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`,
	`{"a":` + strings.Repeat(`[{"b":`, 40) + `1` + strings.Repeat(`}]`, 40) + `}`,
	`{"a":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 69) + `}}`,
}

// wantObject is the reference: encoding/json accepts data and it is an object.
func wantObject(data []byte) bool {
	if !json.Valid(data) {
		return false
	}
	i := skipWS(data, 0)
	return i < len(data) && data[i] == '{'
}

func FuzzCheck(f *testing.F) {
	for _, s := range trickySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if want := wantObject(data); (err == nil) != want {
			t.Fatalf("Check(%q) = %v, encoding/json accepts object: %v", data, err, want)
		}
		if err == nil {
			return
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Check(%q) error %T, want *SyntaxError", data, err)
		}
		if se.Offset < 0 || se.Offset > len(data) {
			t.Fatalf("Check(%q) offset %d out of range", data, se.Offset)
		}
		if se.Msg == "" {
			t.Fatalf("Check(%q) empty message", data)
		}
		if err2 := Members(data, func(k, v []byte) {}); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("Members(%q) = %v, Check = %v", data, err2, err)
		}
	})
}

func FuzzMembers(f *testing.F) {
	for _, s := range trickySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		type member struct{ key, value []byte }
		var members []member
		err := Members(data, func(k, v []byte) {
			if OffsetOf(data, v) < 0 || OffsetOf(data, k) < 0 {
				t.Fatalf("Members(%q): key %q or value %q is not a sub-slice", data, k, v)
			}
			members = append(members, member{k, v})
		})
		if cerr := Check(data); (err == nil) != (cerr == nil) || (err != nil && err.Error() != cerr.Error()) {
			t.Fatalf("Members(%q) = %v, Check = %v", data, err, cerr)
		}
		if err != nil {
			return
		}
		var want map[string]any
		if err := decode(data, &want); err != nil {
			t.Fatalf("Members accepted %q, encoding/json: %v", data, err)
		}
		got := map[string]any{}
		last := map[string][]byte{}
		for _, m := range members {
			key, ok := Unquote(nil, append(append([]byte{'"'}, m.key...), '"'))
			if !ok {
				t.Fatalf("Members(%q): key %q does not unquote", data, m.key)
			}
			if !KeyIs(m.key, string(key)) {
				t.Fatalf("KeyIs(%q, %q) = false", m.key, key)
			}
			var v any
			if err := decode(m.value, &v); err != nil {
				t.Fatalf("Members(%q): value %q: %v", data, m.value, err)
			}
			if !bytes.Equal(m.value, bytes.TrimSpace(m.value)) {
				t.Fatalf("Members(%q): value %q has surrounding space", data, m.value)
			}
			if KindOf(m.value) != kindOfAny(v) {
				t.Fatalf("KindOf(%q) = %v, decoded %T", m.value, KindOf(m.value), v)
			}
			got[string(key)] = v
			last[string(key)] = m.value
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Members(%q) = %v, encoding/json %v", data, got, want)
		}
		for k, v := range last {
			lv, ok := Lookup(data, k)
			if !ok || !bytes.Equal(lv, v) || OffsetOf(data, lv) != OffsetOf(data, v) {
				t.Fatalf("Lookup(%q, %q) = %q %v, want %q", data, k, lv, ok, v)
			}
		}
		for k := range want {
			if _, dup := want[k+"x"]; !dup {
				if lv, ok := Lookup(data, k+"x"); ok {
					t.Fatalf("Lookup(%q, %q) found %q, not a member", data, k+"x", lv)
				}
			}
		}
	})
}

// decode is json.Unmarshal keeping numbers as text, so that a number out of
// float64's range (valid JSON) does not fail the comparison.
func decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the value")
	}
	return nil
}

func kindOfAny(v any) Kind {
	switch v := v.(type) {
	case nil:
		return Null
	case bool:
		if v {
			return True
		}
		return False
	case json.Number:
		return Number
	case string:
		return String
	case []any:
		return Array
	case map[string]any:
		return Object
	}
	return Invalid
}

func FuzzUnquote(f *testing.F) {
	for _, s := range trickySeeds {
		f.Add([]byte(s))
		// The values of the tricky objects, as strings.
		if i := strings.Index(s, `:"`); i >= 0 && strings.HasSuffix(s, `"}`) {
			f.Add([]byte(s[i+1 : len(s)-1]))
		}
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		prefix := []byte("keep")
		got, ok := Unquote(prefix[:len(prefix):len(prefix)], value)
		if !bytes.HasPrefix(got, prefix) {
			t.Fatalf("Unquote(%q) lost dst: %q", value, got)
		}
		got = got[len(prefix):]
		var want string
		err := json.Unmarshal(value, &want)
		wantOK := err == nil && len(value) > 0 && value[0] == '"' && value[len(value)-1] == '"'
		if ok != wantOK {
			t.Fatalf("Unquote(%q) ok = %v, encoding/json: %q, %v", value, ok, want, err)
		}
		if eq := StringEquals(value, want); eq != wantOK {
			t.Fatalf("StringEquals(%q, %q) = %v, want %v", value, want, eq, wantOK)
		}
		if !ok {
			if len(got) != 0 {
				t.Fatalf("Unquote(%q) failed but appended %q", value, got)
			}
			return
		}
		if string(got) != want {
			t.Fatalf("Unquote(%q) = %q, encoding/json %q", value, got, want)
		}
		raw := value[1 : len(value)-1]
		if !KeyIs(raw, want) {
			t.Fatalf("KeyIs(%q, %q) = false", raw, want)
		}
		others := []string{want + "x", "x" + want, "\uFFFD"}
		if len(want) > 0 {
			others = append(others, want[:len(want)-1])
		}
		for _, other := range others {
			if other == want {
				continue
			}
			if StringEquals(value, other) || KeyIs(raw, other) {
				t.Fatalf("StringEquals/KeyIs(%q, %q) = true, decodes to %q", value, other, want)
			}
		}
	})
}
