package summary

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
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
