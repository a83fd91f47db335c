package expr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtools/evtools/filters"
	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/google/go-cmp/cmp"
	"github.com/itchyny/gojq"
)

func builtinLib(t testing.TB) *Library {
	t.Helper()
	lib, err := LoadLibrary(filters.FS, nil)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func mustCompile(t testing.TB, src string, vars map[string]any) *Filter {
	t.Helper()
	f, err := Compile(src, Options{Library: builtinLib(t), Vars: vars})
	if err != nil {
		t.Fatalf("Compile(%s): %v", src, err)
	}
	return f
}

// Lines of both vocabularies: raw zot (as in examples/zot), zot2gp envelopes
// and the multi-agent run log.
var sample = []string{
	/* 0 */ `{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`,
	/* 1 */ `{"error":"deepseek: http 401: ...","stop":"error","type":"turn_end"}`,
	/* 2 */ `{"message":"deepseek: http 401: ...","type":"error"}`,
	/* 3 */ `{"args":{"command":"uname -a"},"id":"call_00_...","name":"bash","type":"tool_call"}`,
	/* 4 */ `{"content":[{"text":"x","type":"text"}],"id":"call_00_...","is_error":true,"type":"tool_result"}`,
	/* 5 */ `{"type":"done"}`,
	/* 6 */ `{"seq":4,"ts":1.5,"run_id":"r_1","agent_id":"","kind":"turn_end","payload":{"error":"deepseek: http 401: ...","stop":"error","type":"turn_end"}}`,
	/* 7 */ `{"seq":5,"ts":1.6,"run_id":"r_1","agent_id":"","kind":"tool_call","payload":{"args":{"command":"rm -rf /"},"id":"c","name":"bash","type":"tool_call"}}`,
	/* 8 */ `{"seq":6,"ts":1.7,"run_id":"r_2","agent_id":"code-reviewer","kind":"tool_call","payload":{"step":1,"tool":"bash","args":{"argv":["ls"]}}}`,
	/* 9 */ `{"seq":7,"ts":1.8,"run_id":"r_2","agent_id":"code-reviewer","kind":"tool_result","payload":{"step":1,"tool":"bash","ok":false}}`,
	/* 10 */ `{"seq":8,"ts":1.9,"run_id":"r_2","agent_id":"parent","kind":"model_result","payload":{"cost_usd":0.25,"latency_ms":12000}}`,
	/* 11 */ `{"seq":9,"ts":2.0,"run_id":"r_2","agent_id":"parent","kind":"run_finished","payload":{"outcome":"ok","tokens":10,"wall_seconds":42.5}}`,
	/* 12 */ `{"seq":10,"ts":2.1,"run_id":"r_2","agent_id":"parent","kind":"model_error","payload":{"error":"rate limited"}}`,
	/* 13 */ `{"cost_usd":1.5,"type":"usage"}`,
	/* 14 */ `{"seq":11,"ts":2.2,"run_id":"r_2","agent_id":"parent","kind":"run_started","payload":{"mode":"parent"}}`,
}

func TestMatch(t *testing.T) {
	tests := []struct {
		expr string
		want []int // indexes of sample that pass
	}{
		{`kind=="tool_call"`, []int{7, 8}},
		{`payload.tool=="bash"`, []int{8, 9}},
		{`payload.tool=="bash" and agent_id=="code-reviewer"`, []int{8, 9}},
		{`type=="tool_result" and is_error`, []int{4}},
		{`type=="turn_end" or kind=="turn_end"`, []int{1, 6}},
		{`error | test("401")`, []int{1}},
		{`payload.error | strings | test("401|rate")`, []int{6, 12}},
		{`kind | IN("tool_call","model_result")`, []int{7, 8, 10}},
		{`seq >= 9`, []int{11, 12, 14}},
		{`seq <= 5`, []int{0, 1, 2, 3, 4, 5, 6, 7, 13}}, // null < 5
		{`payload`, []int{6, 7, 8, 9, 10, 11, 12, 14}},
		{`payload.started == true or data.started == true`, []int{0}},
		{`payload | type == "object"`, []int{6, 7, 8, 9, 10, 11, 12, 14}},
		{`failed`, []int{1, 2, 4, 6, 9, 12}},
		{`failed and agent_id=="parent"`, []int{12}},
		{`tools`, []int{3, 7, 8}},
		{`tool("bash")`, []int{3, 7, 8}},
		{`agent("code-reviewer")`, []int{8, 9}},
		{`costly(0.5)`, []int{13}},
		{`costly(0.1)`, []int{10, 13}},
		{`slow(10000)`, []int{10, 11}},
		{`slow(20000)`, []int{11}},
		{`lifecycle`, []int{0, 5, 11, 14}},
		{`select(.success == true)`, []int{0}},
		{`$k == kind`, []int{14}},
	}
	for _, tt := range tests {
		f := mustCompile(t, tt.expr, map[string]any{"k": "run_started"})
		var got []int
		for i, line := range sample {
			ok, err := f.Match([]byte(line))
			var ee *EvalError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("%s on %d: %v", tt.expr, i, err)
			}
			if ok {
				got = append(got, i)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func TestFastCovers(t *testing.T) {
	fast := []string{
		`kind=="tool_call"`, `payload.tool=="bash"`, `type=="tool_result"`, `kind!="x"`,
		`kind=="a" and (payload.tool=="b" or not_there)`, `kind=="x" | not`, `seq > 3`, `3 <= seq`,
		`payload.cost_usd >= 0.5`, `kind | IN("a","b")`, `select(kind=="a")`, `failed`, `tools`,
		`tool("bash")`, `agent("parent")`, `costly(1)`, `lifecycle`, `$k == kind`, `.["kind"] == "x"`,
		`type=="tool_result" and is_error`, `seq > -1`, `payload.cost_usd >= -0.5`,
		`payload.tokens > 9000 and (kind|startswith("model"))`, `kind | endswith("_result")`,
		`payload.args.command | test("rm")`, `name | test("B"; "i")`, `name | test("a"; null)`,
		`(kind | startswith("tool")) | not`, `kind | startswith($k)`, `payload.args.command | strings | test("rm")`,
		`(args.path | strings | endswith(".go")) | not`,
	}
	for _, s := range fast {
		if f := mustCompile(t, s, map[string]any{"k": "x"}); !f.Fast() {
			t.Errorf("%s: not on the fast path", s)
		}
	}
	slow := []string{
		`payload.args.command | ascii_downcase | test("rm")`, `.payload[0] == 1`, `kind == kind`, `def f: 1; f`,
		`kind | startswith(kind)`, `kind | startswith(1)`, `kind | test("(")`, `kind | test("a"; "x")`,
		`kind | test(["a", "i"])`, `kind | startswith($nope)`, `kind | strings | length > 1`, `kind | strings | not`,
		`kind | strings | IN("a")`,
		`kind as $k | $k == "x"`, `payload.tool? == "x"`, `slow(10)`, `[kind] == ["x"]`, `kind == $nope`,
	}
	for _, s := range slow {
		f, err := Compile(s, Options{Library: builtinLib(t), Vars: map[string]any{"nope": []any{}}})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if f.Fast() {
			t.Errorf("%s: on the fast path", s)
		}
	}
	// The user's own filters with $parameters are inlined too, whatever
	// the length of their names.
	lib := builtinLib(t)
	if err := lib.Add("mine.jq", "def k($x): kind == $x;\ndef is_tool($name): payload.tool == $name;\n"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`k("tool_call")`, `is_tool("bash") and k("tool_result")`} {
		f, err := Compile(s, Options{Library: lib})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !f.Fast() {
			t.Errorf("%s: not on the fast path", s)
		}
	}
}

func TestInputError(t *testing.T) {
	f := mustCompile(t, `kind=="x"`, nil)
	g := mustCompile(t, `payload | length > 0`, nil)
	for _, line := range []string{`[1]`, `{"a":}`, `not json`, `{"a":1}x`} {
		for _, f := range []*Filter{f, g} {
			_, err := f.Match([]byte(line))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("Match(%s) = %v, want an InputError", line, err)
			}
		}
	}
}

func TestEvalError(t *testing.T) {
	f := mustCompile(t, `payload.args.command | test("rm")`, nil)
	ok, err := f.Match([]byte(sample[8]))
	var ee *EvalError
	if ok || !errors.As(err, &ee) {
		t.Fatalf("got %v, %v; want an EvalError", ok, err)
	}
	// A fast-path expression through a string raises gojq's error too.
	f = mustCompile(t, `payload.x == 1`, nil)
	ok, err = f.Match([]byte(`{"payload":"str"}`))
	if ok || !errors.As(err, &ee) {
		t.Fatalf("got %v, %v; want an EvalError", ok, err)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, s := range []string{`kind ==`, `nosuch(1)`, `$undefined == 1`, `import "a" as a; .`} {
		if _, err := Compile(s, Options{Library: builtinLib(t)}); err == nil {
			t.Errorf("Compile(%s) succeeded", s)
		}
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{"a":1,"b":[1,2.5,-3e10,{"c":null}],"d":"x\u00e9\ud83d\ude00\n","e":true,"f":false,"a":2}`,
		`{"bad":"\ud800x","utf":"` + "\xff\xfe" + `","k\u0069":1}`,
		` { } `, `{"a":[]}`, `{"a":{}}`, `{"a":{},"b":1,"c":[],"d":{"e":{}},"f":2}`,
		`{"a":"héllo wörld","b":"日本","c":"x"}`, "{\"a\":\"x\x80y\",\"b\":\"\xc3\"}",
	} {
		want := stdDecode(t, []byte(s))
		if diff := cmp.Diff(want, Decode([]byte(s))); diff != "" {
			t.Errorf("%s (-encoding/json +Decode):\n%s", s, diff)
		}
	}
}

func stdDecode(t testing.TB, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// agreementExprs are checked on the fast path against gojq alone.
var agreementExprs = []string{
	`kind=="tool_call"`, `payload.tool=="bash"`, `type=="tool_result"`, `type=="tool_result" and is_error`,
	`kind!="model_result"`, `payload.latency_ms > 3000`, `payload.cost_usd <= 0.001`, `seq < 100`,
	`ts >= 1793494990`, `payload.ok == false`, `payload.step == 1`, `payload.outcome != "ok"`,
	`is_error == false`, `step > 1 or stop == "error"`, `failed`, `tools`, `tool("bash")`, `tool("read")`,
	`agent("parent")`, `costly(0.001)`, `lifecycle`, `kind | IN("tool_call","tool_result")`,
	`payload.model.provider == "anthropic"`, `name < "m"`, `payload.text > "a"`, `cumulative.output >= 100`,
	`data.started`, `payload.tokens == 13762.0`, `payload.args.path == null`, `delta == "}" | not`,
	`payload.tokens > 9000 and (kind|startswith("model"))`, `kind | startswith("tool")`,
	`kind | endswith("_result")`, `payload.tool | startswith("b")`, `payload.args.command | test("rm")`,
	`name | test("^b.sh$")`, `name | test("BASH"; "i")`, `payload.text | test("。$")`,
	`(kind | startswith("tool")) | not`, `delta | endswith("")`, `payload.args.command | test("a.b"; "gm")`,
	`payload.args.command | strings | test("rm")`, `(payload.args.command | strings | test("rm")) | not`,
	`(payload.args.command | strings | test("git")) or kind == "tool_call"`, `(args.path | strings | endswith(".go")) and type == "tool_call"`,
}

func TestFastAgreesWithGojqOnCorpora(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 512<<10, 7); err != nil {
		t.Fatal(err)
	}
	if err := corpus.Zot(&buf, 512<<10, 7); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, s := range agreementExprs {
		f := mustCompile(t, s, nil)
		if !f.Fast() {
			t.Errorf("%s: not on the fast path", s)
			continue
		}
		n := 0
		for _, line := range lines {
			fast, ferr := f.Match([]byte(line))
			ref, rerr := f.matchGojq([]byte(line))
			if fast != ref || (ferr == nil) != (rerr == nil) {
				t.Fatalf("%s on %s: fast %v %v, gojq %v %v", s, line, fast, ferr, ref, rerr)
			}
			if fast {
				n++
			}
		}
		t.Logf("%-45s %d of %d", s, n, len(lines))
	}
}

// FuzzFastPath: on any line, the fast path's verdict is gojq's.
func FuzzFastPath(f *testing.F) {
	for _, s := range sample {
		f.Add([]byte(s), uint8(0))
	}
	for _, s := range []string{`{"kind":"tool_c\u0061ll","kind":1}`, `{"payload":"x"}`, `{"seq":1e400}`,
		`{"seq":100000000000000000000001}`, `{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"payload":{"tool":["bash"]}}`,
		`{"payload":{"tool":"bash"},"payload":{"x":1}}`, `{"payload":{"tool":"x","tool":"bash"}}`,
		`{"payload":{"t\u006fol":"bash"}}`, `{"payload":[{"tool":"bash"}]}`, `{"payload":{"args":{"tool":"bash"}}}`,
		`{"payload":{"tool":"bash"},"payload":null}`, `{"payload":{"x":{"y":true}},"payload":{"x":{"y":false}}}`,
		`{"kind":"model\u005fresult","payload":{"tokens":9001}}`, "{\"name\":\"\xffbash\xff\"}", `{"name":"\ud83d\ude00x\ud800"}`,
		`{"name":"a\nb","payload":{"args":{"command":"A\nB"}}}`, `{"kind":["model"]}`, `{"kind":null}`} {
		f.Add([]byte(s), uint8(1))
	}
	exprs := append([]string{`name == "\ufffd"`, `seq > 1e300`, `seq == 100000000000000000000001`,
		`payload.tool == "bash"`, `seq != 1.0`, `kind == null`, `payload == null`, `payload.x.y <= false`,
		`name | startswith("\ufffd")`, `name | endswith("\ufffd")`, `name | test("\ufffd")`, `name | test("^.x.$")`,
		`name | startswith("\ud83d")`, `name | test("a.b"; "m")`, `name | test("a.b")`, `name | endswith("b\ufffd")`},
		agreementExprs...)
	lib, err := LoadLibrary(filters.FS, nil)
	if err != nil {
		f.Fatal(err)
	}
	var fs []*Filter
	for _, s := range exprs {
		x, err := Compile(s, Options{Library: lib})
		if err != nil || !x.Fast() {
			f.Fatalf("%s: %v (fast %v)", s, err, x != nil && x.Fast())
		}
		fs = append(fs, x)
	}
	f.Fuzz(func(t *testing.T, line []byte, which uint8) {
		x := fs[int(which)%len(fs)]
		fast, ferr := x.Match(line)
		ref, rerr := x.matchGojq(line)
		if fast != ref || (ferr == nil) != (rerr == nil) {
			t.Fatalf("%s on %q: fast %v %v, gojq %v %v", exprs[int(which)%len(fs)], line, fast, ferr, ref, rerr)
		}
	})
}

// FuzzCompile: no expression makes Compile or a match panic.
func FuzzCompile(f *testing.F) {
	for _, s := range append([]string{`kind==`, `def f: f; f`, `type(1)`, `..|type`, `{(kind): 1}`,
		`reduce .[] as [$a,{b:$c}] (0; .)`, `"\(error)"`, `try error catch error`, `label $f | break $f`},
		agreementExprs...) {
		f.Add(s)
	}
	lib, err := LoadLibrary(filters.FS, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := Compile(s, Options{Library: lib})
		if err != nil {
			return
		}
		if strings.Contains(s, "input") || strings.Contains(s, "repeat") || strings.Contains(s, "range") ||
			strings.Contains(s, "recurse") || strings.Contains(s, "while") || strings.Contains(s, "until") ||
			strings.Contains(s, "limit") || strings.Contains(s, "def") || strings.Contains(s, "halt") {
			return // may run forever or read stdin
		}
		x.Match([]byte(sample[7]))
	})
}

// FuzzDecode: Decode gives encoding/json's value for every valid object.
func FuzzDecode(f *testing.F) {
	for _, s := range sample {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) || bytes.TrimSpace(line)[0] != '{' {
			return
		}
		if diff := cmp.Diff(stdDecode(t, line), Decode(line)); diff != "" {
			t.Fatalf("%q (-encoding/json +Decode):\n%s", line, diff)
		}
	})
}

func benchCorpus(b *testing.B, kind string) []byte {
	var buf bytes.Buffer
	var err error
	if kind == "zot" {
		err = corpus.Zot(&buf, 8<<20, 1)
	} else {
		err = corpus.Envelope(&buf, 8<<20, 1)
	}
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func benchMatch(b *testing.B, kind, src string, wantFast bool) {
	data := benchCorpus(b, kind)
	f := mustCompile(b, src, nil)
	if f.Fast() != wantFast {
		b.Fatalf("%s: fast %v", src, f.Fast())
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Match(sc.Bytes())
		}
	}
}

func BenchmarkFastEnvelopeKind(b *testing.B)   { benchMatch(b, "envelope", `kind=="tool_call"`, true) }
func BenchmarkFastEnvelopeTool(b *testing.B)   { benchMatch(b, "envelope", `payload.tool=="bash"`, true) }
func BenchmarkFastEnvelopeFailed(b *testing.B) { benchMatch(b, "envelope", `failed`, true) }
func BenchmarkFastZotType(b *testing.B) {
	benchMatch(b, "zot", `type=="tool_result" and is_error`, true)
}
func BenchmarkGojqEnvelope(b *testing.B) {
	// "r" + "m" is no constant to the fast path, which takes test("rm").
	benchMatch(b, "envelope", `payload.args.command | strings | test("r" + "m")`, false)
}
func BenchmarkGojqZot(b *testing.B) { benchMatch(b, "zot", `content | arrays | length > 1`, false) }

func BenchmarkDecode(b *testing.B) {
	data := benchCorpus(b, "envelope")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			Decode(sc.Bytes())
		}
	}
}

func TestCompareNumber(t *testing.T) {
	// The literal -0.0 is +0 in Go; a negative zero needs math.Copysign.
	consts := []any{0, 1, -1, 100000, 1.5, 0.0, math.Copysign(0, -1), 1e300, 1 << 62}
	raws := []string{"0", "-0", "1", "-1", "1.0", "1e0", "100000", "99999.999", "1.5", "1E300", "1e400", "-1e400",
		"123456789012345678", "1234567890123456789", "12345678901234567890123", "0.1e1", "4611686018427387904",
		"9999999999999999999", "-9999999999999999999"}
	for _, c := range consts {
		for _, r := range raws {
			if got, want := compareNumber([]byte(r), c), gojq.Compare(json.Number(r), c); got != want {
				t.Errorf("compare(%s, %v) = %d, gojq says %d", r, c, got, want)
			}
		}
	}
}

// FuzzFastStringTests: string tests with any argument, on any line, give
// gojq's verdict and error, on the fast path or off it.
func FuzzFastStringTests(f *testing.F) {
	for i, s := range sample {
		f.Add([]byte(s), uint8(i), "b")
	}
	f.Add([]byte(`{"name":"a\u00e9b","kind":"model_result","payload":{"tokens":9001}}`), uint8(2), "^a.b$")
	f.Add([]byte("{\"name\":\"\xffb\"}"), uint8(1), "\ufffd")
	f.Add([]byte(`{"name":"x\ud800"}`), uint8(3), "\ufffd$")
	f.Add([]byte(`{"name":7,"kind":"x","payload":"rm"}`), uint8(8), "")
	f.Add([]byte(`{"name":null,"kind":"y","payload":{"args":{"command":["rm"]}}}`), uint8(7), "r")
	shapes := []string{`name | startswith(%q)`, `name | endswith(%q)`, `name | test(%q)`, `kind | test(%q; "i")`,
		`payload.tokens > 9000 and (kind | startswith(%q))`, `(payload.args.command | test(%q; "m")) | not`,
		`name | strings | test(%q)`, `(payload.args.command | strings | startswith(%q)) | not`,
		`(name | strings | endswith(%q)) or kind == "x"`, `kind == "x" and (payload | strings | test(%q))`,
		`(name | strings | test(%q)) and kind == "x"`, `(kind | strings | startswith(%q) | not) or true`}
	f.Fuzz(func(t *testing.T, line []byte, shape uint8, arg string) {
		if !utf8.ValidString(arg) {
			return
		}
		src := fmt.Sprintf(shapes[int(shape)%len(shapes)], arg)
		x, err := Compile(src, Options{})
		if err != nil {
			return
		}
		fast, ferr := x.Match(line)
		ref, rerr := x.matchGojq(line)
		if fast != ref || fmt.Sprint(ferr) != fmt.Sprint(rerr) {
			t.Fatalf("%s (fast %v) on %q: %v %v, gojq %v %v", src, x.Fast(), line, fast, ferr, ref, rerr)
		}
	})
}
