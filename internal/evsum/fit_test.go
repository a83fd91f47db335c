package evsum

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/summary"
)

func TestDurationAndCountTexts(t *testing.T) {
	for _, c := range []struct {
		f    func(float64) string
		in   float64
		want string
	}{
		{durText, 0, "0.00s"},
		{durText, 2.89, "2.89s"},
		{durText, 9.994, "9.99s"},
		{durText, 9.996, "10.0s"},
		{durText, 34.62, "34.6s"},
		{durText, 59.96, "1m00s"},
		{durText, 112.35, "1m52s"},
		{durText, 3599.4, "59m59s"},
		{durText, 3599.6, "1h00m"},
		{durText, 7500, "2h05m"},
		{durText, 90000, "1d01h"},
		{msText, 0.44, "0.4ms"},
		{msText, 2.5, "2.5ms"},
		{msText, 12, "12ms"},
		{msText, 850, "850ms"},
		{msText, 999.4, "999ms"},
		{msText, 999.6, "1.00s"},
		{msText, 1726, "1.73s"},
		{msText, 61000, "1m01s"},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0"}, {9999, "9999"}, {10000, "10k"}, {62670, "63k"}, {99_949, "100k"},
		{999_499, "999k"}, {999_500, "1.0M"}, {1_234_567, "1.2M"}, {9_960_000, "10M"},
		{12_345_678, "12M"}, {3_400_000_000, "3.4B"}, {-25_000, "-25k"},
	} {
		if got := siText(c.in); got != c.want {
			t.Errorf("%d: %q, want %q", c.in, got, c.want)
		}
	}
}

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
	in, err := os.ReadFile("../../examples/events/multiagent.jsonl")
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
		o, err := summaryOptions(&options{By: by, TZ: "UTC"})
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
			writeTable(&out, st, cx, tableSpec{cols: shownColumns(defaultColumns(cx.names), st), fit: true, width: w})
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
		writeTable(&out, st, cx, tableSpec{cols: shownColumns(defaultColumns(cx.names), st), fit: true, width: 400})
		head, _, _ := strings.Cut(out.String(), "\n")
		if n := len(sep.FindAllString(head, -1)) + 1; n != 17+max(len(cx.names), 1) {
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
	out := &syncBuffer{}
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
	ts := strconv.FormatInt(now().Unix(), 10)
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
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--live", "always", "--width", "60"}, cli.Stdio{In: inR, Out: out, Err: io.Discard})
	}()
	ts := strconv.FormatInt(now().Unix(), 10)
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
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--live", "always", "--width", "60", "--breakdown", "model", "--columns", "run,outcomes,model_calls"}, cli.Stdio{In: inR, Out: out, Err: io.Discard})
	}()
	ts := strconv.FormatInt(now().Unix(), 10)
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
func waitFor(t *testing.T, out *syncBuffer, s string) string {
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

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
