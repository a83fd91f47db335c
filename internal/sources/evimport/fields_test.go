package evimport

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// The names of the members the tables read, at any depth of every
// record type: a line with a key that differs from one of them only in
// case is left out of the comparison with encoding/json, which matches
// keys without regard to case (the tables do not: no agent writes them
// so).
var memberNames = namesOf(claudeLine{}, block{}, claudeCostLine{}, codexLine{}, codexPayload{}, piLine{}, piBlock{}, geminiRecord{}, copilotLine{}, copilotData{})

// opencodeNames are opencodeRecord's: apart, since its sessionID is
// another agent's sessionId in another case.
var opencodeNames = namesOf(opencodeRecord{})

// namesOf are the json names of the members of the types, at any depth.
func namesOf(types ...any) []string {
	seen := map[reflect.Type]bool{}
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				names[cmp.Or(tag, f.Name)] = true
				walk(f.Type)
			}
		}
	}
	for _, t := range types {
		walk(reflect.TypeOf(t))
	}
	return slices.Sorted(maps.Keys(names))
}

// plainKeys reports whether data has no key that is a member name in
// another case, and no object with a key twice (encoding/json merges two
// objects of one name, the decoders take the last).
func plainKeys(data []byte) bool { return plainKeysOf(data, memberNames) }

func plainKeysOf(data []byte, memberNames []string) bool {
	ok := true
	var walk func(v []byte)
	walk = func(v []byte) {
		switch {
		case len(v) > 0 && v[0] == '{':
			seen := map[string]bool{}
			jsonscan.Each(v, func(k, v []byte) bool {
				key, _ := jsonscan.Unquote(nil, append(append([]byte{'"'}, k...), '"'))
				for _, n := range memberNames {
					if strings.EqualFold(string(key), n) && string(key) != n {
						ok = false
					}
				}
				if seen[string(key)] {
					ok = false
				}
				seen[string(key)] = true
				walk(v)
				return ok
			})
		case len(v) > 0 && v[0] == '[':
			jsonscan.Elements(v, func(v []byte) bool { walk(v); return ok })
		}
	}
	walk(data)
	return ok
}

// sameAsEncodingJSON decodes data into a T with encoding/json and with
// its table and compares what they read, or the error each says.
// contentPlain checks what the check found of a Claude Code tool result's
// content, as outputCanonical does, and forgets it.
func contentPlain(t *testing.T, data []byte, l *claudeLine) {
	t.Helper()
	forget := func(m *claudeMessage) {
		if m == nil {
			return
		}
		for i := range m.parsed {
			if b := &m.parsed[i]; b.contentPlain {
				if !jsontext.Canonical(b.Content) {
					t.Fatalf("%s: the content %s is taken for canonical", data, b.Content)
				}
				b.contentPlain = false
			}
		}
	}
	forget(l.Message)
	if l.Data != nil && l.Data.Message != nil {
		forget(l.Data.Message.Message)
	}
}

// outputCanonical checks what the check found of a Codex output, which
// encoding/json does not say (a long output spelled as jsontext writes
// it is known so without a second look), and forgets it: never taken for
// canonical when it is not.
func outputCanonical(t *testing.T, data []byte, p *codexPayload) {
	t.Helper()
	if p.outputCanonical && !jsontext.Canonical(p.Output) {
		t.Fatalf("%s: the output is taken for canonical", data)
	}
	p.outputCanonical = false
}

func sameAsEncodingJSON[T any](t *testing.T, tb recordTable[T], data []byte) {
	var want T
	werr := json.Unmarshal(data, &want)
	if werr == nil {
		werr = contentRead(&want)
	}
	// a line checked before, and one checked as it is decoded (a
	// worker's), which reads its objects' members from the check
	for _, check := range []bool{false, true} {
		var got T
		d := fields{check: check}
		tb.decodeLine(&d, data, &got)
		if m, ok := any(&got).(interface{ decoded() }); ok {
			m.decoded()
		}
		if p, ok := any(&got).(*codexPayload); ok {
			outputCanonical(t, data, p)
		}
		if l, ok := any(&got).(*claudeLine); ok {
			contentPlain(t, data, l)
		}
		switch {
		case werr != nil && d.err != nil:
			if w := shapeError(werr).Error(); w != d.err.Error() {
				t.Fatalf("%T (check %v): encoding/json says %q, the decoder %q\n%s", got, check, w, d.err, data)
			}
		case werr != nil || d.err != nil:
			t.Fatalf("%T (check %v): encoding/json says %v, the decoder %v\n%s", got, check, werr, d.err, data)
		case !reflect.DeepEqual(want, got):
			t.Fatalf("%T (check %v): encoding/json reads\n%+v\nthe decoder\n%+v\n%s", got, check, want, got, data)
		}
	}
}

// contentRead reads the content of the messages of l, a line as
// encoding/json decoded it, into blocks, as the table does while
// it reads the line; the error is that of a block of the wrong shape.
func contentRead(l any) error {
	var err error
	read := func(m *claudeMessage, path ...string) {
		if m != nil {
			d := fields{path: path}
			m.parsed, m.Content = d.messageBlocks(m.Content, "message"), nil
			err = cmp.Or(err, d.blockErr)
		}
	}
	switch l := l.(type) {
	case *claudeLine:
		read(l.Message)
		if l.Data != nil && l.Data.Message != nil {
			read(l.Data.Message.Message, "data", "message")
		}
	case *piLine:
		if m := l.Message; m != nil {
			var d fields
			m.blocks = d.readPiBlocks(m.Content, "message", m.Role == "assistant")
			err = d.blockErr
		}
	}
	return err
}

// payloadAsEncodingJSON decodes a Codex line's payload as codexDecode
// does, from what the check of the line found, and compares it with
// encoding/json's reading of it.
func payloadAsEncodingJSON(t *testing.T, data []byte) {
	d := fields{check: true}
	var l codexLine
	codexLineTable.decode(&d, data, &l)
	if d.err != nil || len(l.Payload) == 0 || l.Payload[0] != '{' {
		return
	}
	var want, got codexPayload
	werr := json.Unmarshal(l.Payload, &want)
	d.err, d.hard = nil, false
	codexPayloadTable.decode(&d, l.Payload, &got)
	outputCanonical(t, data, &got)
	switch {
	case werr != nil && d.err != nil:
		if w := shapeError(werr).Error(); w != d.err.Error() {
			t.Fatalf("payload: encoding/json says %q, the decoder %q\n%s", w, d.err, data)
		}
	case werr != nil || d.err != nil:
		t.Fatalf("payload: encoding/json says %v, the decoder %v\n%s", werr, d.err, data)
	case !reflect.DeepEqual(want, got):
		t.Fatalf("payload: encoding/json reads\n%+v\nthe decoder\n%+v\n%s", want, got, data)
	}
}

// badLikeCheck decodes data, which is not one JSON object, as a worker
// does (checked as it is decoded): the error is the one jsonscan.Check
// gives, whatever the decoder read before it.
func badLikeCheck[T any](t *testing.T, tb recordTable[T], data []byte, want error) {
	var got T
	d := fields{check: true}
	tb.decodeLine(&d, data, &got)
	if d.err == nil || d.err.Error() != want.Error() {
		t.Fatalf("%T: the decoder says %v, Check %q\n%s", got, d.err, want, data)
	}
}

// FuzzFieldsLikeEncodingJSON checks the tables' decoding (fields.go)
// against encoding/json, which read the lines before them.
func FuzzFieldsLikeEncodingJSON(f *testing.F) {
	for _, src := range sources {
		seeds(f.Add, src.name)
	}
	opencodeSeeds(func(d []byte) { f.Add(d) })
	for _, s := range []string{
		`{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}`,
		`{"type":"user","isMeta":"yes","costUSD":1e400}`,
		`{"message":{"role":"user","timestamp":"x"},"version":"3"}`,
		`{"payload":{"info":{"total_token_usage":{"input_tokens":"7"}}}}`,
		`{"toolCalls":[{"result":[{"functionResponse":{"response":{"output":5}}}]}],"thoughts":[1]}`,
		`{"data":{"message":{"message":{"usage":null,"content":"\ud800x"}}},"compactMetadata":[]}`,
		`{"type":"assistant","timestamp":5,"message":{"id":"m"`,
		`{"message":{"usage":{"input_tokens":2}},"message":{"model":"x"}}`,
		`{"type":"session.shutdown","data":{"modelMetrics":{"m":{"requests":{"cost":"1"}},"n":5}}}`,
		`{"data":{"toolRequests":[{"toolCallId":1}],"outputTokens":null,"context":[]}}`,
		// keys spelled with escapes, looked up once unescaped
		`{"t\u0079pe":"assistant","message":{"usag\u0065":{"input_tokens":1},"content":[{"t\u0079pe":"text","text":"k"}]}}`,
		`{"\u0074imestamp":"t","payload":{"typ\u0065":"message","output":"o"},"a\\b":1,"\"":2,"sessionI\u0064":5}`,
		`{"toolCalls":[{"\u0069d":"c","result":[{"functionR\u0065sponse":{"response":{"output":"x"}}}]}],"tok\u0065ns":{"input":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, line := range strings.Split(string(b), "\n") {
			data := []byte(line)
			if err := jsonscan.Check(data); err != nil {
				badLikeCheck(t, claudeLineTable, data, err)
				badLikeCheck(t, codexLineTable, data, err)
				badLikeCheck(t, piLineTable, data, err)
				badLikeCheck(t, geminiRecordTable, data, err)
				badLikeCheck(t, copilotLineTable, data, err)
				badLikeCheck(t, opencodeTable, data, err)
				continue
			}
			if plainKeysOf(data, opencodeNames) {
				line, _ := jsonscan.Lookup(data)
				sameAsEncodingJSON(t, opencodeTable, line)
			}
			if !plainKeys(data) {
				continue
			}
			data, _ = jsonscan.Lookup(data) // the lines as jsonl gives them
			payloadAsEncodingJSON(t, data)
			sameAsEncodingJSON(t, claudeLineTable, data)
			sameAsEncodingJSON(t, codexLineTable, data)
			sameAsEncodingJSON(t, codexPayloadTable, data)
			sameAsEncodingJSON(t, piLineTable, data)
			sameAsEncodingJSON(t, geminiRecordTable, data)
			sameAsEncodingJSON(t, copilotLineTable, data)
			sameAsEncodingJSON(t, copilotDataTable, data)
			if v, ok := jsonscan.Lookup(data, "data"); ok && len(v) > 0 && v[0] == '{' {
				sameAsEncodingJSON(t, copilotDataTable, v)
			}
		}
	})
}

// TestValidNumber: a json.Number's text must be a JSON number, as
// encoding/json checks it (pi's "version":"00" is a bad line).
func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "3": true, "-1": true, "1.5": true, "1e3": true, "2E-7": true, "-0.0e+1": true,
		"00": false, "01": false, "+1": false, "": false, "-": false, "1.": false, ".5": false, "1e": false, "1e+": false, "0x1": false, "Inf": false,
	} {
		if got := validNumber(s); got != want {
			t.Errorf("validNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// objectsOf reads an array of objects of the checked line from its tape:
// the same elements and members as jsonscan.Objects walking it, and as
// Objects, a member handler that returns false (a hard error, in
// fields.objects) ends its object only, not the array: a member "stop"
// does here.
func FuzzObjectsOf(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","arguments":{"a":[1,{}]}},null,"x"]}}`,
		`{"toolCalls":[{"id":"a","result":[{"functionResponse":{"response":{"output":"ok"}}}]},{}],"n":[[],{}]}`,
		`{"toolCalls":[{"id":"a","stop":1,"name":"after"},{"id":"b"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var arrays [][]byte
		var d fields
		d.check = true
		d.each(line, func(k, v []byte) {
			if len(v) > 0 && v[0] == '{' {
				jsonscan.Each(v, func(_, v []byte) bool {
					if len(v) > 0 && v[0] == '[' {
						arrays = append(arrays, v)
					}
					return true
				})
			} else if len(v) > 0 && v[0] == '[' {
				arrays = append(arrays, v)
			}
		})
		if d.err != nil {
			return
		}
		for _, a := range arrays {
			var walked, taped []string
			record := func(to *[]string) (func(byte), func(k, v []byte) bool) {
				return func(first byte) { *to = append(*to, "element "+string(first)) },
					func(k, v []byte) bool { *to = append(*to, string(k)+"="+string(v)); return string(k) != "stop" }
			}
			start, member := record(&walked)
			jsonscan.Objects(a, start, member)
			start, member = record(&taped)
			d.objectsOf(a, start, member)
			if !reflect.DeepEqual(walked, taped) {
				t.Fatalf("%s: walked %q, from the tape %q", a, walked, taped)
			}
		}
	})
}

// readParentByEncodingJSON is how a spawned rollout's parent and role were
// read before readParent: encoding/json, which readParent follows but
// for keys in another case.
func readParentByEncodingJSON(source []byte) (parent, role string) {
	if len(source) == 0 || source[0] != '{' {
		return "", ""
	}
	var src struct {
		Subagent json.RawMessage `json:"subagent"`
	}
	if json.Unmarshal(source, &src) != nil || len(src.Subagent) == 0 {
		return "", ""
	}
	role = "subagent"
	var kinds map[string]json.RawMessage
	if json.Unmarshal(src.Subagent, &kinds) == nil {
		for _, kind := range slices.Sorted(maps.Keys(kinds)) {
			var spawn struct {
				Parent string `json:"parent_thread_id"`
				Role   string `json:"agent_role"`
			}
			role = kind
			if json.Unmarshal(kinds[kind], &spawn) == nil && spawn.Parent != "" {
				parent = spawn.Parent
				if spawn.Role != "" {
					role = spawn.Role
				}
			}
		}
	} else {
		json.Unmarshal(src.Subagent, &role)
	}
	return parent, role
}

// A spawned Codex agent's source reads as encoding/json read it: its
// parent's thread and its role, whatever the shape of the members.
func FuzzReadParent(f *testing.F) {
	for _, s := range []string{
		`{"subagent":{"thread_spawn":{"parent_thread_id":"019c-p","depth":1,"agent_role":"explorer"}}}`,
		`{"subagent":{"thread_spawn":{"parent_thread_id":"019c-p"}}}`,
		`{"subagent":"review"}`, `{"subagent":null}`, `{"subagent":7}`, `{"subagent":[1]}`, `{}`, `"cli"`,
		`{"subagent":{"b":{"parent_thread_id":"x"},"a":{"parent_thread_id":"y","agent_role":"r"}}}`,
		`{"subagent":{"k":{"parent_thread_id":"x","agent_role":5}}}`, `{"subagent":{"k":{"parent_thread_id":null}}}`,
		`{"subagent":{"k":"word"}}`, `{"subagent":{"k":null}}`, `{"subagent":{"k":{"parent_thread_id":"x"},"k":{"agent_role":"z"}}}`,
		`{"subagent":{"k":{"parent_thread_id":"x","parent_thread_id":null}}}`, `{"sub\u0061gent":{"k":{"parent_thread_id":"\u00e9"}}}`,
		`{"subagent":"a","subagent":{"k":{"parent_thread_id":"p"}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		if !json.Valid(src) || !utf8.Valid(src) || keysInAnotherCase(src, "subagent", "parent_thread_id", "agent_role") {
			return
		}
		cf := codexFile{meta: codexPayload{Source: src}}
		gotP, gotR := cf.readParent()
		wantP, wantR := readParentByEncodingJSON(src)
		if gotP != wantP || gotR != wantR {
			t.Fatalf("%s: parent %q, role %q; encoding/json reads %q, %q", s, gotP, gotR, wantP, wantR)
		}
	})
}

// keysInAnotherCase reports whether the JSON value v has a key, at any
// depth, that is one of names in another case: encoding/json takes it,
// the tables do not.
func keysInAnotherCase(v []byte, names ...string) bool {
	found := false
	var walk func(v []byte)
	walk = func(v []byte) {
		switch jsonscan.KindOf(v) {
		case jsonscan.Object:
			jsonscan.Each(v, func(k, e []byte) bool {
				key := string(unescapedKey(k))
				for _, n := range names {
					if key != n && strings.EqualFold(key, n) {
						found = true
					}
				}
				walk(e)
				return !found
			})
		case jsonscan.Array:
			jsonscan.Elements(v, func(e []byte) bool {
				walk(e)
				return !found
			})
		}
	}
	walk(v)
	return found
}

// TestHasBackslash: the word test read makes of a key that is no name
// says true of every word with a backslash in any of its bytes.
func TestHasBackslash(t *testing.T) {
	for _, s := range []string{`\`, `a\`, `\aaaaaaa`, `aaaaaaa\`, `aaa\aaaa`, "\xdc\\", "\\\x00", "\x5d\x5c\x5b"} {
		b := make([]byte, 8)
		copy(b, s)
		if !hasBackslash(binary.LittleEndian.Uint64(b)) {
			t.Errorf("%q: no backslash found", s)
		}
	}
	for _, s := range []string{"", "type", "sessionI", "\xdc\xdc\xdc\xdc\xdc\xdc\xdc\xdc", "[]]]][[["} {
		b := make([]byte, 8)
		copy(b, s)
		if hasBackslash(binary.LittleEndian.Uint64(b)) {
			t.Errorf("%q: a backslash found", s)
		}
	}
}

// FuzzTableFind: read finds the member a key names, as the line spells
// it (escapes and all), and no member for a key that names none, in
// every table (its slots, words and hash, sameMiddle, hasBackslash).
func FuzzTableFind(f *testing.F) {
	var tables []*table
	var add func(tb *table)
	add = func(tb *table) { // with the tables of the records it holds
		if tb != nil && !slices.Contains(tables, tb) {
			tables = append(tables, tb)
			for _, m := range tb.members {
				add(m.inner)
			}
		}
	}
	for _, tb := range []*table{claudeLineTable.table, claudeBlockTable.table, claudeCostTable.table, codexLineTable.table, codexPayloadTable.table,
		piLineTable.table, piBlockTable.table, geminiRecordTable.table, copilotLineTable.table, copilotDataTable.table, opencodeTable.table} {
		add(tb)
	}
	for _, n := range memberNames {
		f.Add(n)
		f.Add(n[:len(n)-1])
		f.Add(`\u00` + strconv.FormatInt(int64(n[0]), 16) + n[1:])
		f.Add(n[:len(n)/2] + `\\` + n[len(n)/2:])
		if len(n) > 24 {
			f.Add(n[:17] + string(n[17]^1) + n[18:]) // its words, not its middle
		}
	}
	f.Fuzz(func(t *testing.T, key string) {
		name, ok := jsonscan.Unquote(nil, []byte(`"`+key+`"`))
		valid := ok && utf8.Valid([]byte(key))
		for _, tb := range tables {
			want := -1
			for i, m := range tb.members {
				if valid && m.name == string(name) {
					want = i
				}
			}
			// the key in a line of its own, and alone in its memory
			line := []byte(`{"` + key + `":null}`)
			for _, k := range [][]byte{line[2 : 2+len(key)], []byte(key)} {
				rec := make([]byte, 1<<16) // room for any record: null sets no more than a member
				if got := tb.read(&fields{}, k, []byte("null"), unsafe.Pointer(&rec[0])); got != want && valid {
					t.Fatalf("key %q (%q): read found member %d, not %d", key, name, got, want)
				}
			}
		}
	})
}
