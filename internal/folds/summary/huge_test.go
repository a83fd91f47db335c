package summary

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// hugeRunEvents are a run's events with a run_id of n bytes of s.
func hugeRunEvents(s string, n int) (id string, ls [][]byte) {
	id = strings.Repeat(s, n/len(s))
	for i, ev := range []string{
		`"kind":"model_result","payload":{"tokens":5,"cost_usd":0.1}`,
		`"kind":"tool_call","payload":{"tool":"bash"}`,
		`"kind":"run_finished","payload":{"outcome":"ok","wall_seconds":1}`,
	} {
		ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"%s","agent_id":"a",%s}`, i+1, 1793520000+i, id, ev))
	}
	return id, ls
}

// WriteJSON writes in pieces what AppendJSON appends, also for group
// values and problems long enough to be written apart, escapes and runes
// across the pieces included.
func TestWriteJSON(t *testing.T) {
	for _, s := range []string{"x", `a\"b\\n`, "é€\\u2028ø", "\\u0001z"} {
		for _, by := range []string{"run", "run,agent", "none"} {
			_, ls := hugeRunEvents(s, 3*longValue+7)
			_, short := hugeRunEvents(s, 10)
			keys, err := ParseBy(by)
			if err != nil {
				t.Fatal(err)
			}
			st := summarise(t, Options{By: keys}, append(ls, short...))
			err = st.EachRecord(func(r *Record) error {
				var w bytes.Buffer
				if _, err := r.WriteJSON(&w, []byte("junk")); err != nil {
					return err
				}
				if want := r.AppendJSON(nil); !bytes.Equal(w.Bytes(), want) {
					t.Errorf("%q by %s: WriteJSON differs from AppendJSON:\n%.300s\nwant\n%.300s", s, by, w.Bytes(), want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestHugeRunID: a run_id of 8 MB is held once, by the run and its group
// alike (it was held three times, with the key buffer).
func TestHugeRunID(t *testing.T) {
	const n = 8 << 20
	_, ls := hugeRunEvents("x", n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := summarise(t, Options{By: []Key{keyWords["run"]}}, ls)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	runtime.KeepAlive(ls)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > n*5/4 {
		t.Errorf("the state holds %d bytes for a run_id of %d: more than one copy", grew, n)
	}
}

// A problem names a run by its id in quotes; an id too long to read is
// named by its first 64 bytes (whole runes) and its length, so that each
// problem of a huge run is not one more copy of its id.
func TestProblemNamesLongRunID(t *testing.T) {
	for _, c := range []struct {
		s     string
		n     int
		whole bool
	}{
		{"x", maxNamedID, true},
		{"x", maxNamedID + 1, false},
		{"é", maxNamedID + 9, false}, // 64 bytes cut a rune in two
	} {
		id, ls := hugeRunEvents(c.s, c.n)
		st := summarise(t, Options{By: []Key{keyWords["run"]}}, ls[1:]) // no model call: an open tool call
		total := st.Report()[len(st.Report())-1]
		if len(total.Problems) == 0 {
			t.Fatalf("%d bytes: no problem reported", len(id))
		}
		for _, pr := range total.Problems {
			p := pr.String()
			short := fmt.Sprintf("run %q (a run_id of %d bytes) ", strings.ToValidUTF8(id[:64], "")+"…", len(id))
			switch {
			case c.whole && !strings.HasPrefix(p, fmt.Sprintf("run %q ", id)):
				t.Errorf("%d bytes: %.100q does not name the run whole", len(id), p)
			case !c.whole && !strings.HasPrefix(p, short):
				t.Errorf("%d bytes: %.200q does not start %q", len(id), p, short)
			case !utf8.ValidString(p):
				t.Errorf("%d bytes: %.200q is not UTF-8", len(id), p)
			}
		}
	}
}

// A state does not keep a huge line once it has added it: only what it
// counts (here the run_id, as the group's key).
func TestHugeLineForgotten(t *testing.T) {
	_, ls := hugeRunEvents("x", 10)
	line := fmt.Appendf(nil, `{"seq":9,"ts":1793520009,"run_id":"r","kind":"tool_call","payload":{"tool":"bash","input":"%s"}}`, strings.Repeat("y", hugeLine))
	s := summarise(t, Options{}, ls)
	if err := s.Add(line); err != nil {
		t.Fatal(err)
	}
	collected := make(chan struct{})
	runtime.AddCleanup(&line[0], func(c chan struct{}) { close(c) }, collected)
	line = nil
	for range 100 {
		runtime.GC()
		select {
		case <-collected:
			runtime.KeepAlive(s)
			return
		default:
			runtime.Gosched()
		}
	}
	t.Error("the state still holds the huge line it added")
}
