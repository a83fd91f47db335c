package cursor

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func cursorOf(t testing.TB, line string) *Cursor {
	t.Helper()
	var e Event
	if err := e.Scan([]byte(line)); err != nil {
		t.Fatal(err)
	}
	return CursorOf(&e, "log", 1)
}

// resumed runs a Resumer after the cursor of cur over lines and returns
// the lines it passes and whether it found the cursor.
func resumed(t *testing.T, cur string, lines []string) ([]string, bool) {
	t.Helper()
	var from *Cursor
	if cur != "" {
		from = cursorOf(t, cur)
	}
	r := NewResumer(from)
	var out []string
	for _, l := range lines {
		var e Event
		if err := e.Scan([]byte(l)); err != nil {
			t.Fatal(err)
		}
		if r.Pass(&e) {
			out = append(out, l)
		}
	}
	return out, r.Found()
}

func TestResumer(t *testing.T) {
	ev := func(seq int, run string, ts string) string {
		return fmt.Sprintf(`{"seq":%d,"ts":%s,"run_id":%q,"kind":"x"}`, seq, ts, run)
	}
	a1, a2, a3 := ev(1, "a", "100.1"), ev(2, "a", "100.2"), ev(3, "a", "100.3")
	b1, b2 := ev(1, "b", "200.1"), ev(2, "b", "200.2")
	tests := []struct {
		name  string
		cur   string
		lines []string
		want  []string
		found bool
	}{
		{"no cursor passes all", "", []string{a1, a2}, []string{a1, a2}, false},
		{"log grew", a2, []string{a1, a2, a3}, []string{a3}, true},
		{"restart in the same log", a3, []string{a1, a2, a3, b1, b2}, []string{b1, b2}, true},
		{"nothing new", a3, []string{a1, a2, a3}, nil, true},
		{"rotated: newer by ts", a2, []string{a3, b1, b2}, []string{a3, b1, b2}, false},
		{"truncated: older gone, nothing newer", a3, []string{a1}, nil, false},
		// A same-looking line that is not byte-identical is not the cursor.
		{"same seq, run and ts, other bytes", a2, []string{`{"seq":2,"ts":100.2,"run_id":"a","kind":"y"}`, a3},
			[]string{a3}, false},
		// Everything after the cursor's line is new, even a clock that went
		// back.
		{"after the cursor, ts does not matter", b1, []string{a1, b1, ev(2, "b", "50.0")},
			[]string{ev(2, "b", "50.0")}, true},
		// Same ts: the same run with a higher seq is newer.
		{"tie on ts", ev(5, "a", "7"), []string{ev(4, "a", "7"), ev(6, "a", "7"), ev(6, "z", "7")},
			[]string{ev(6, "a", "7")}, false},
		{"no ts: same run, higher seq", `{"seq":5}`, []string{`{"seq":4}`, `{"seq":6}`, `{"seq":7,"run_id":"q"}`},
			[]string{`{"seq":6}`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := resumed(t, tt.cur, tt.lines)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("passed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if found != tt.found {
				t.Errorf("found %v, want %v", found, tt.found)
			}
		})
	}
}

func TestStateRoundTrip(t *testing.T) {
	c := cursorOf(t, `{"seq":9007199254740993,"ts":1758800000.123456789,"run_id":"r_1","kind":"x"}`)
	p := cursorOf(t, `{"seq":9007199254740999,"ts":1758800001,"run_id":"r_1"}`)
	s := &State{Cursor: c, Pending: p}
	data := s.Marshal()
	for _, want := range []string{`"seq": 9007199254740993`, `"ts": 1758800000.123456789`, `"run_id": "r_1"`, `"pending"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("state file lacks %s:\n%s", want, data)
		}
	}
	got, err := ParseState(data)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(s) {
		t.Errorf("round trip changed the state:\n%s\n%s", data, got.Marshal())
	}
}

// A cursor saved and loaded again still finds its event, whatever its
// run_id and ts look like: the raw values are written back byte for byte.
func TestSavedCursorFindsItsEvent(t *testing.T) {
	lines := []string{
		`{"seq":3,"ts":1758800000.10,"run_id":"r_<&>\u00e9","kind":"x"}`,
		`{"seq":3,"ts":1.7588000001e9,"run_id":{"a": [1, 2]},"kind":"x"}`,
		`{"seq":3,"ts":null,"run_id":null}`,
		`{"seq":3,"ts":"2026-11-30T00:00:00Z"}`,
		`{"seq":3}`,
	}
	for _, line := range lines {
		path := filepath.Join(t.TempDir(), "s")
		if err := SaveState(path, &State{Cursor: cursorOf(t, line)}); err != nil {
			t.Fatal(err)
		}
		st, err := LoadState(path)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		r := NewResumer(st.Cursor)
		for _, l := range []string{line, `{"seq":4,"kind":"after"}`} {
			var e Event
			e.Scan([]byte(l))
			r.Pass(&e)
		}
		if !r.Found() {
			data, _ := os.ReadFile(path)
			t.Errorf("the cursor of %s was not found after a save:\n%s", line, data)
		}
	}
}

func TestParseState(t *testing.T) {
	good := `{"version":1,"cursor":{"seq":5,"sha256":"` + strings.Repeat("ab", 32) + `"}}`
	tests := []struct {
		name, data, err string
	}{
		{"empty file", "", ""},
		{"only whitespace", " \n", ""},
		{"good", good, ""},
		{"no cursor yet", `{"version":1,"cursor":null}`, ""},
		{"not json", "seq=5", "not an evcursor state"},
		{"torn", good[:30], "not an evcursor state"},
		{"two values", good + good, "more than one JSON value"},
		{"unknown field", `{"version":1,"cursor":null,"x":1}`, "unknown field"},
		{"future version", `{"version":2,"cursor":null}`, "version 2 is not supported"},
		{"no version", `{"cursor":null}`, "version 0 is not supported"},
		{"bad seq", `{"version":1,"cursor":{"seq":-5,"sha256":"` + strings.Repeat("ab", 32) + `"}}`, "cursor: seq -5 is not"},
		{"string seq", `{"version":1,"cursor":{"seq":"5","sha256":"` + strings.Repeat("ab", 32) + `"}}`, "cursor: seq"},
		{"bad hash", `{"version":1,"cursor":{"seq":5,"sha256":"xyz"}}`, "cursor: sha256"},
		{"bad pending", `{"version":1,"cursor":null,"pending":{"seq":1.5,"sha256":""}}`, "pending: seq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseState([]byte(tt.data))
			if tt.err == "" {
				if err != nil {
					t.Errorf("error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestLoadSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daily.cursor")
	s, err := LoadState(path)
	if err != nil || s.Cursor != nil {
		t.Fatalf("missing file: %v, %v", s, err)
	}
	s.Cursor = cursorOf(t, `{"seq":3,"ts":1}`)
	if err := SaveState(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(path)
	if err != nil || !got.Equal(s) {
		t.Fatalf("loaded %v, %v", got, err)
	}
	// A killed save leaves a temporary file; the next locked run removes it.
	stale := path + tempInfix + "123"
	os.WriteFile(stale, []byte("{"), 0o644)
	RemoveStaleTemps(path)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file still there: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only the state", len(entries))
	}
}

// A state file named without a folder (--state daily.cursor) is saved in
// the current folder, its temporary file beside it.
func TestSaveRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s := &State{Cursor: cursorOf(t, `{"seq":3,"ts":1}`)}
	if err := SaveState("daily.cursor", s); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(filepath.Join(dir, "daily.cursor"))
	if err != nil || !got.Equal(s) {
		t.Fatalf("loaded %v, %v", got, err)
	}
}

// A save that cannot replace the file fails, says so, and leaves the
// folder as it was: no temporary file behind.
func TestFailedSaveLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daily.cursor")
	if err := os.Mkdir(path, 0o755); err != nil { // in the way of the rename
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveState(path, &State{Cursor: cursorOf(t, `{"seq":3}`)}); err == nil {
		t.Fatal("SaveState over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only daily.cursor", names)
	}
}

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path); !errors.Is(err, ErrBusy) {
		t.Fatalf("second lock: %v, want ErrBusy", err)
	}
	unlock()
	unlock2, err := Lock(path)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

// saveLoopEnv makes the test binary a child that saves cursors with seq
// n, n+1, ... in a loop and prints each seq once its save returned.
const saveLoopEnv = "CURSOR_TEST_SAVE_LOOP"

func TestMain(m *testing.M) {
	if spec := os.Getenv(saveLoopEnv); spec != "" {
		saveLoop(spec)
		return
	}
	os.Exit(m.Run())
}

func saveLoop(spec string) {
	path, from, _ := strings.Cut(spec, "|")
	n, _ := strconv.Atoi(from)
	w := bufio.NewWriter(os.Stdout)
	for ; ; n++ {
		line := fmt.Sprintf(`{"seq":%d,"ts":1758800000.%d,"run_id":"r_kill","payload":{"pad":%q}}`, n, n, strings.Repeat("x", n%300))
		var e Event
		e.Scan([]byte(line))
		if err := SaveState(path, &State{Cursor: CursorOf(&e, "log", n)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(w, n)
		w.Flush()
	}
}

// SIGKILL at any instant of a save leaves the old cursor or the new one:
// never a torn, empty or missing file.
func TestKilledWhileSaving(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 120 processes")
	}
	path := filepath.Join(t.TempDir(), "daily.cursor")
	seq := 1
	s := &State{Cursor: cursorOf(t, `{"seq":1,"ts":1,"run_id":"r_kill"}`)}
	if err := SaveState(path, s); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for round := 0; round < 120; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), saveLoopEnv+"="+path+"|"+strconv.Itoa(seq+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := make(chan int, 1)
		go func() {
			last := seq
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				last, _ = strconv.Atoi(sc.Text())
			}
			acked <- last
		}()
		time.Sleep(time.Duration(rng.IntN(30000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()
		last := <-acked
		kills++

		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		st, err := ParseState(data)
		if err != nil {
			t.Fatalf("round %d: torn state file: %v\n%q", round, err, data)
		}
		if st.Cursor == nil {
			t.Fatalf("round %d: the cursor is gone", round)
		}
		got, _ := strconv.Atoi(string(st.Cursor.Seq))
		// The last save that returned, or the one under way when killed.
		if got != last && got != last+1 {
			t.Fatalf("round %d: file holds seq %d; the last completed save was %d", round, got, last)
		}
		seq = got
	}
	t.Logf("%d kills, last seq %d", kills, seq)
	// Killed saves may leave temporary files; a locked run removes them.
	RemoveStaleTemps(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files left beside the state after cleaning", len(entries))
	}
}

// The state file is for people too: a cursor read from stdin names
// "<stdin>", not "\u003cstdin\u003e".
func TestStateNamesStdinReadably(t *testing.T) {
	var e Event
	e.Scan([]byte(`{"seq":1}`))
	data := (&State{Cursor: CursorOf(&e, "<stdin>", 1)}).Marshal()
	if !strings.Contains(string(data), `"file": "<stdin>"`) {
		t.Errorf("state file does not say <stdin> plainly:\n%s", data)
	}
	if st, err := ParseState(data); err != nil || st.Cursor.File != "<stdin>" {
		t.Errorf("round trip: %v, %v", st, err)
	}
}

// A file name is quoted by jsontext's policy: a newline, DEL, a C1 control
// or U+2028 in it cannot break the state file's lines or reach a terminal
// raw when someone cats it, and the name reads back the same.
func TestStateQuotesFileName(t *testing.T) {
	var e Event
	e.Scan([]byte(`{"seq":1}`))
	const name = "logs/a\nb\x7f<\u2028\u009b\"q\".jsonl"
	data := (&State{Cursor: CursorOf(&e, name, 1)}).Marshal()
	want := `"file": "logs/a\nb\u007f<\u2028\u009b\"q\".jsonl"`
	if !strings.Contains(string(data), want) {
		t.Errorf("state file does not hold %s:\n%s", want, data)
	}
	if st, err := ParseState(data); err != nil || st.Cursor.File != name {
		t.Errorf("round trip: %+v, %v", st.Cursor, err)
	}
}
