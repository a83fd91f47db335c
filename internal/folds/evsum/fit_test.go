package evsum

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/devtools/testio"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/rogpeppe/go-internal/txtar"
)

func TestCellWidthAndCut(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		cut   string // to 6 cells
	}{
		{"abc", 3, "abc"},
		{"abcdefgh", 8, "abcde…"},
		{"日本語のテキスト", 16, "日本…"},
		{"e\u0301te\u0301", 3, "e\u0301te\u0301"}, // combining accents take no cell
		{"ab日本語", 8, "ab日…"},
	} {
		if got := cellWidth(c.s); got != c.width {
			t.Errorf("cellWidth(%q) = %d, want %d", c.s, got, c.width)
		}
		if got := cutText(c.s, 6); got != c.cut || cellWidth(got) > 6 {
			t.Errorf("cutText(%q, 6) = %q, want %q", c.s, got, c.cut)
		}
	}
}

func TestRows(t *testing.T) {
	frame := "\x1b[Kab\n" + bold + strings.Repeat("x", 10) + reset + "\n\x1b[K" + strings.Repeat("y", 11) + "\n\n"
	if got := rows([]byte(frame), 10); got != 5 {
		t.Errorf("rows = %d, want 5 (1, 1, 2 for a line of 11, 1 for an empty one)", got)
	}
}

func TestWrap(t *testing.T) {
	got := wrap(`run "r_1" has 2 tool_calls without a tool_result`, 20, "  ", "    ")
	want := []string{`  run "r_1" has 2`, `    tool_calls`, `    without a`, `    tool_result`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", got, want)
	}
	// a word longer than a line is broken where it falls
	got = wrap("a "+strings.Repeat("x", 30), 12, "", "  ")
	for _, l := range got {
		if cellWidth(l) > 12 {
			t.Errorf("line %q wider than 12", l)
		}
	}
	if strings.Join(got, "") != "a "+strings.Repeat("x", 10)+"  "+strings.Repeat("x", 10)+"  "+strings.Repeat("x", 10) {
		t.Errorf("long word: %q", got)
	}
}

// The fitted table is never wider than the width it is given, at every
// width and for every grouping, and it shows more as the width grows:
// the columns of a narrower table are always among those of a wider one.
func TestFittedTableFits(t *testing.T) {
	in, err := os.ReadFile("../../../examples/events/multiagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// keys with wide characters, and problems to wrap
	in = append(in, `{"seq":1,"ts":1793530000,"run_id":"r_日本語の実行識別子はとても長いです","agent_id":"エージェント","kind":"tool_call","payload":{"tool":"bash"}}`+"\n"...)
	// a call without a price: the unpriced columns are shown, and fitted
	in = append(in, `{"seq":2,"ts":1793530001,"run_id":"r_unpriced","agent_id":"main","kind":"model_result","payload":{"model":"new-model","input":1234567,"output":89,"unpriced":true}}`+"\n"...)
	// the test's own measure: every rune one cell, but those from U+1100
	// on (here only CJK) two
	width := func(s string) int {
		n := 0
		for _, r := range s {
			n++
			if r >= 0x1100 && r != '…' {
				n++
			}
		}
		return n
	}
	sep := regexp.MustCompile(`\S  +`)
	for _, by := range []string{"run", "agent", "run,agent", "none", "day", "tool", "payload.model"} {
		prev := 0
		var prevHead string
		o, err := summaryOptions(&options{By: by, Range: window.Range{TZ: "UTC"}})
		if err != nil {
			t.Fatal(err)
		}
		st := summary.New(o)
		for _, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
			if err := st.Add(l); err != nil {
				t.Fatal(err)
			}
		}
		cx := &cellCtx{loc: o.Loc, names: keyNames(st)}
		for w := 1; w <= 220; w++ {
			var out bytes.Buffer
			writeTable(&out, st, cx, tableSpec{cols: shownColumns(defaultColumns(cx.names, st.Options().By), st), fit: true, width: w})
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			for _, l := range lines {
				if width(l) > w {
					t.Fatalf("--by %s --width %d: line %q is %d wide", by, w, l, width(l))
				}
			}
			head := lines[0]
			cols := len(sep.FindAllString(head, -1)) + 1
			if cols < prev {
				t.Errorf("--by %s: %d columns at width %d (%q), %d at %d (%q)", by, cols, w, head, prev, w-1, prevHead)
			}
			prev, prevHead = cols, head
			if w >= 5 && !strings.Contains(out.String(), "\ntotal") && !strings.HasPrefix(out.String(), "total") {
				t.Errorf("--by %s --width %d: no total row:\n%s", by, w, out.String())
			}
		}
		// wide enough: every column
		var out bytes.Buffer
		writeTable(&out, st, cx, tableSpec{cols: shownColumns(defaultColumns(cx.names, st.Options().By), st), fit: true, width: 400})
		head, _, _ := strings.Cut(out.String(), "\n")
		if n := len(sep.FindAllString(head, -1)) + 1; n != len(shownColumns(defaultColumns(cx.names, st.Options().By), st)) {
			t.Errorf("--by %s --width 400: %d columns: %s", by, n, head)
		}
	}
}

// A live table (--live always, so that it is drawn in a pipe): the first
// frame appears while the input is still open, each frame overwrites the
// one before (the cursor goes up as many lines as it had, each line is
// cleared as it is written, what is left below is cleared), and the final
// table takes the last frame's place once the input ends.
func TestLiveRedraw(t *testing.T) {
	t.Setenv("LINES", "")
	os.Unsetenv("LINES")
	inR, inW := io.Pipe()
	out := &testio.SyncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--live", "always", "--width", "80"}, cli.Stdio{In: inR, Out: out, Err: io.Discard})
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	start := func(run string) string {
		return `{"seq":1,"ts":` + ts + `,"run_id":"` + run + `","agent_id":"","kind":"user_message","payload":{}}` + "\n" +
			`{"seq":2,"ts":` + ts + `,"run_id":"` + run + `","agent_id":"a","kind":"model_result","payload":{"tokens":1234567,"cost_usd":0.5}}` + "\n"
	}
	end := func(run string) string {
		return `{"seq":3,"ts":` + ts + `,"run_id":"` + run + `","agent_id":"","kind":"assistant_message","payload":{}}` + "\n" +
			`{"seq":4,"ts":` + ts + `,"run_id":"` + run + `","agent_id":"","kind":"run_finished","payload":{"outcome":"ok","wall_seconds":112.35}}` + "\n"
	}
	send(start("r_1"))
	first := waitFor(t, out, "running 1")
	if strings.Contains(first, "\x1b[A") || !strings.HasPrefix(first, "\x1b[Krun_id") || !strings.HasSuffix(first, "\x1b[J") {
		t.Fatalf("first frame %q: want its lines cleared as written, the rest cleared after, no cursor move", first)
	}
	frame1 := strings.Count(first, "\n")
	if frame1 != 3 || !strings.Contains(first, "\x1b[Kr_1 ") || !strings.Contains(first, "1.2M") {
		t.Fatalf("first frame %q: want header, r_1 running, total", first)
	}
	send(end("r_1") + start("r_2"))
	second := waitFor(t, out, "r_2")[len(first):]
	if want := "\x1b[" + strconv.Itoa(frame1) + "A\r\x1b[Krun_id"; !strings.HasPrefix(second, want) {
		t.Errorf("second frame %q does not start with %q", second, want)
	}
	if !strings.Contains(second, "ok 1, running 1") || !strings.Contains(second, "1m52s") {
		t.Errorf("second frame %q: want r_1 ok after 1m52s, r_2 running", second)
	}
	select {
	case code := <-done:
		t.Fatalf("evsum ended (%d) while its input is open", code)
	default:
	}
	send(end("r_2"))
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The final table over the last frame (four lines whether or not
	// a frame showed r_2 ended), each line cleared as it is written.
	want := "\x1b[4A\r" +
		"\x1b[Krun_id  outcomes  tokens  cost $  failed  errors  wall p50  problems\n" +
		"\x1b[Kr_1     ok 1        1.2M  0.5000       0       0     1m52s         0\n" +
		"\x1b[Kr_2     ok 1        1.2M  0.5000       0       0     1m52s         0\n" +
		"\x1b[Ktotal   ok 2        2.5M  1.0000       0       0     1m52s         0\n" +
		"\x1b[J"
	if all := out.String(); !strings.HasSuffix(all, want) {
		t.Errorf("the output does not end with the final table over the last frame:\n%q\nwant the end:\n%q", all[max(0, len(all)-len(want)-100):], want)
	}
}

// A frame is never taller than the terminal: with LINES=6 it takes five
// lines at most (the cursor's is the sixth), the oldest rows giving way
// to "… N more".
func TestLiveFrameFitsHeight(t *testing.T) {
	t.Setenv("LINES", "6")
	inR, inW := io.Pipe()
	out := &testio.SyncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--live", "always", "--width", "60"}, cli.Stdio{In: inR, Out: out, Err: io.Discard})
	}()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	for i := 1; i <= 6; i++ {
		io.WriteString(inW, `{"seq":1,"ts":`+ts+`,"run_id":"r_`+strconv.Itoa(i)+`","agent_id":"","kind":"user_message","payload":{}}`+"\n")
	}
	frame := waitFor(t, out, "running 6")
	inW.Close()
	<-done
	var lines []string
	for _, l := range strings.SplitAfter(strings.TrimSuffix(frame, "\x1b[J"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\x1b[K"))
	}
	got := strings.Join(lines, "")
	if want := "run_id  outcomes   tokens  cost $  errors  problems\n" +
		"… 4 more\n" +
		"r_5     running 1       0  0.0000       0         0\n" +
		"r_6     running 1       0  0.0000       0         0\n" +
		"total   running 6       0  0.0000       0         0\n"; got != want {
		t.Errorf("frame:\n%s\nwant:\n%s", got, want)
	}
}

// With --breakdown a frame counts the rows of each group's models among
// its rows, and keeps the total's in sight under it.
func TestLiveFrameBreakdown(t *testing.T) {
	t.Setenv("LINES", "9")
	inR, inW := io.Pipe()
	out := &testio.SyncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--live", "always", "--width", "60", "--breakdown", "model", "--columns", "run,outcomes,model_calls"}, cli.Stdio{In: inR, Out: out, Err: io.Discard})
	}()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	for i := 1; i <= 4; i++ {
		io.WriteString(inW, `{"seq":1,"ts":`+ts+`,"run_id":"r_`+strconv.Itoa(i)+`","agent_id":"","kind":"model_call","payload":{"model":"m"}}`+"\n")
	}
	frame := waitFor(t, out, "running 4")
	inW.Close()
	<-done
	var lines []string
	for _, l := range strings.SplitAfter(strings.TrimSuffix(frame, "\x1b[J"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\x1b[K"))
	}
	got := strings.Join(lines, "")
	if want := "run_id  outcomes   model calls\n" +
		"… 4 more\n" +
		"r_3     running 1            1\n" +
		"↳ m                          1\n" +
		"r_4     running 1            1\n" +
		"↳ m                          1\n" +
		"total   running 4            4\n" +
		"↳ m                          4\n"; got != want {
		t.Errorf("frame:\n%s\nwant:\n%s", got, want)
	}
}

// waitFor waits until out has a whole frame (ending in CSI J) with s in
// it, and returns the output up to its end.
func waitFor(t *testing.T, out *testio.SyncBuffer, s string) string {
	t.Helper()
	for range 200 {
		all := out.String()
		if i := strings.Index(all, s); i >= 0 {
			if j := strings.Index(all[i:], "\x1b[J"); j >= 0 {
				return all[:i+j+3]
			}
		}
		sleep()
	}
	t.Fatalf("no frame with %q in 5 s: %q", s, out.String())
	return ""
}

func sleep() { time.Sleep(25 * time.Millisecond) }

// A live table keeps the columns its first frame chose: as the runs end
// and the total's outcomes grow, the outcomes are cut shorter, and no
// column goes (nor one come back) between frames; the final table over
// the last frame keeps them too. A new width is fitted afresh.
func TestLiveFramesKeepTheirColumns(t *testing.T) {
	o, err := summaryOptions(&options{By: "run", Range: window.Range{TZ: "UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	st := summary.New(o)
	ev := func(seq int, run, kind, payload string) {
		t.Helper()
		line := fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":%q,"agent_id":"a","kind":%q,"payload":%s}`, seq, 1793520000+seq, run, kind, payload)
		if err := st.Add([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	cx := &cellCtx{loc: o.Loc, names: keyNames(st)}
	var keep keptLayout
	frame := func(width int, keep *keptLayout) string {
		var out bytes.Buffer
		writeTable(&out, st, cx, tableSpec{cols: shownColumns(defaultColumns(cx.names, o.By), st), fit: true, width: width, keep: keep})
		return out.String()
	}
	ev(1, "r_1", "model_result", `{"tokens":1234,"cost_usd":0.01,"latency_ms":900}`)
	// the columns' names, whatever their widths
	names := func(table string) string {
		h, _, _ := strings.Cut(table, "\n")
		return strings.Join(regexp.MustCompile(`  +`).Split(strings.TrimSpace(h), -1), "|")
	}
	first := frame(80, &keep)
	head := names(first)
	for i, end := range []string{"ok", "error", "killed", "cancelled", "timeout"} {
		run := fmt.Sprintf("r_%d", i+2)
		ev(10*i+10, run, "model_result", `{"tokens":123456,"cost_usd":0.02,"latency_ms":1500}`)
		ev(10*i+11, run, "run_finished", `{"outcome":"`+end+`","wall_seconds":12}`)
		got := frame(80, &keep)
		if names(got) != head {
			t.Errorf("after %s the columns changed:\n%s\nfrom\n%s", end, got, first)
		}
		if fresh := names(frame(80, nil)); i == 4 && fresh == head {
			t.Errorf("the test shows nothing: a table fitted afresh has the same columns:\n%s", fresh)
		}
	}
	if !strings.Contains(frame(80, &keep), "…") {
		t.Errorf("the outcomes are not cut:\n%s", frame(80, &keep))
	}
	// a call without a price: its columns come (they are shown from the
	// first), but no column dropped before comes back
	ev(100, "r_9", "model_result", `{"model":"new","input":1234,"output":5,"unpriced":true}`)
	for _, n := range strings.Split(names(frame(80, &keep)), "|") {
		if !strings.Contains("|"+head+"|", "|"+n+"|") && !strings.HasPrefix(n, "unpr") {
			t.Errorf("column %q came back with the unpriced calls:\n%s", n, frame(80, &keep))
		}
	}
	// a wider terminal: fitted afresh, as a first frame is
	if h := names(frame(120, &keep)); h != names(frame(120, &keptLayout{})) {
		t.Errorf("at 120 columns: %q", h)
	}
}

// Run ids are cut in the middle, keeping the end that tells two runs of a
// session apart; to the width, wide characters too.
func TestCutMiddle(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18/1", 20, "c4a81f02-6…e7c6b18/1"},
		{"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18/1", 38, "c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18/1"},
		{"r_日本語の実行識別子", 12, "r_日本…別子"},
		{"abcdefgh", 4, "abc…"},
	} {
		got := cutMiddle(c.s, c.w)
		if got != c.want || cellWidth(got) > c.w {
			t.Errorf("cutMiddle(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// What evimport | evsum --by day or --by session shows: at every width a
// column empty or 0 on every row goes before any other, and at 80 columns
// the tokens and the cost stay, while the problems and the unpriced calls
// (0 on all rows but one) are still there to lose.
func TestFitDropsBlankColumnsFirst(t *testing.T) {
	a, err := txtar.ParseFile("testdata/fit.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	for _, f := range a.Files {
		if f.Name == "imported.jsonl" {
			in = f.Data
		}
	}
	for _, by := range []string{"day", "session"} {
		o, err := summaryOptions(&options{By: by, Range: window.Range{TZ: "UTC"}})
		if err != nil {
			t.Fatal(err)
		}
		st := summary.New(o)
		for _, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
			if err := st.Add(l); err != nil {
				t.Fatal(err)
			}
		}
		cx := &cellCtx{loc: o.Loc, names: keyNames(st)}
		each := func(fn func(*record.Record) error) error { return eachRow(st, fn) }
		cols := withSteps(shownColumns(defaultColumns(cx.names, o.By), st), each)
		_, w1, w2, blank := measure(cols, each, cx, true)
		if !slices.Contains(blank, true) {
			t.Fatalf("--by %s: no blank column: the test shows nothing", by)
		}
		for w := 1; w <= 220; w++ {
			l := fit(cols, w1, w2, blank, w, false, nil)
			for i, c := range cols {
				for j, d := range cols {
					if blank[i] && l.show[i] && !blank[j] && d.field != nil && d.dropRank() > 0 && !l.show[j] {
						t.Errorf("--by %s --width %d: %s, blank, is shown, and %s is not", by, w, c.name, d.name)
					}
				}
			}
			if w != 80 {
				continue
			}
			shown := map[string]bool{}
			for i, c := range cols {
				shown[c.name] = l.show[i]
			}
			if !shown["tokens"] || !shown["cost"] || shown["errors"] || shown["failed"] {
				t.Errorf("--by %s --width 80: shown %v: want tokens and cost, not errors or failed (0 on every row)", by, shown)
			}
		}
	}
}
