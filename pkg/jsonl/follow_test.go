package jsonl

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// followFile is a file a test writes as a producer would, its times
// moved on at each change so that a change is seen whatever the clock's
// grain.
type followFile struct {
	t    testing.TB
	name string
	tick int
}

func (w *followFile) touched() {
	w.tick++
	at := time.Unix(1_700_000_000+int64(w.tick), 0)
	if err := os.Chtimes(w.name, at, at); err != nil {
		w.t.Fatal(err)
	}
}

// write appends s, or writes the file anew (truncated, same file) with
// trunc, or as a new file renamed over the name with replace.
func (w *followFile) write(s string, trunc, replace bool) {
	name, flag := w.name, os.O_APPEND
	switch {
	case replace:
		name, flag = w.name+".new", os.O_TRUNC
	case trunc:
		flag = os.O_TRUNC
	}
	f, err := os.OpenFile(name, flag|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		w.t.Fatal(err)
	}
	f.Close()
	if replace {
		if err := os.Rename(name, w.name); err != nil {
			w.t.Fatal(err)
		}
	}
	w.touched()
}

// follow looks and reads once, and returns what changed and the
// records read, as "LINE:DATA".
func follow(t testing.TB, f *Follower, in *Input) (Change, []string) {
	ch := f.Look()
	var got []string
	if ch == Grown || ch == Restarted {
		err := f.Read(in, func(r Record) error {
			got = append(got, fmt.Sprintf("%d:%s", r.Line, r.Data))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ch, got
}

// oneShot is what a one-shot read of data yields, but a last line
// without '\n' (which a Follower holds): "LINE:DATA" for each record,
// a line with a NUL byte left out (reported bad).
func oneShot(data []byte) []string {
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var out []string
	Lines(data, func(line int, rec []byte, nul bool) bool {
		if !nul {
			out = append(out, fmt.Sprintf("%d:%s", line, rec))
		}
		return true
	})
	return out
}

func TestFollower(t *testing.T) {
	type step struct {
		op   string // append, trunc, replace, remove, look
		data string
		ch   Change
		want []string
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"growth and a half-written line", []step{
			{"append", "\ufeff{\"a\":1}\r\n{\"b\"", Grown, []string{`1:{"a":1}`}},
			{"look", "", Unchanged, nil},
			{"append", ":2}\n\n  \n{\"c\":3}", Grown, []string{`2:{"b":2}`}},
			{"append", "\n", Grown, []string{`5:{"c":3}`}},
		}},
		{"truncated and written again", []step{
			{"append", "{\"a\":1}\n{\"b\":2}\n", Grown, []string{`1:{"a":1}`, `2:{"b":2}`}},
			{"trunc", "{\"c\":3}\n", Restarted, []string{`1:{"c":3}`}},
		}},
		{"rewritten longer, its start changed", []step{
			{"append", "{\"a\":1}\n", Grown, []string{`1:{"a":1}`}},
			{"trunc", "{\"x\":1}\n{\"b\":2}\n", Restarted, []string{`1:{"x":1}`, `2:{"b":2}`}},
		}},
		{"rewritten the same, longer", []step{
			{"append", "{\"a\":1}\n", Grown, []string{`1:{"a":1}`}},
			{"trunc", "{\"a\":1}\n{\"b\":2}\n", Grown, []string{`2:{"b":2}`}},
		}},
		{"replaced by another file", []step{
			{"append", "{\"a\":1}\n", Grown, []string{`1:{"a":1}`}},
			{"replace", "{\"a\":1}\n{\"b\":2}\n", Restarted, []string{`1:{"a":1}`, `2:{"b":2}`}},
		}},
		{"gone and back", []step{
			{"append", "{\"a\":1}\n", Grown, []string{`1:{"a":1}`}},
			{"remove", "", Gone, nil},
			{"look", "", Unchanged, nil},
			{"append", "{\"b\":2}\n", Grown, []string{`1:{"b":2}`}},
		}},
		{"a line with a NUL byte", []step{
			{"append", "{\"a\":\x00}\n{\"b\":2}\n", Grown, []string{`2:{"b":2}`}},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &followFile{t: t, name: filepath.Join(t.TempDir(), "s.jsonl")}
			var stderr strings.Builder
			in := &Input{Tool: "t", Stderr: &stderr}
			f := &Follower{Name: w.name}
			for i, s := range c.steps {
				switch s.op {
				case "append", "trunc", "replace":
					w.write(s.data, s.op == "trunc", s.op == "replace")
				case "remove":
					os.Remove(w.name)
				}
				ch, got := follow(t, f, in)
				if ch != s.ch || !reflect.DeepEqual(got, s.want) {
					t.Errorf("step %d (%s %q): %v %q, want %v %q", i, s.op, s.data, ch, got, s.ch, s.want)
				}
			}
			if c.name == "a line with a NUL byte" {
				want := "t: " + w.name + ":1: " + ErrNUL.Error() + "\n"
				if stderr.String() != want {
					t.Errorf("stderr %q, want %q", stderr.String(), want)
				}
			} else if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// A compressed file is read whole once it decompresses whole; written
// again, it is a new file.
func TestFollowerCompressed(t *testing.T) {
	w := &followFile{t: t, name: filepath.Join(t.TempDir(), "s.jsonl.gz")}
	z := gzipped(t, "{\"a\":1}\n{\"b\":2}")
	f := &Follower{Name: w.name}
	in := &Input{Tool: "t", Stderr: os.Stderr}
	w.write(string(z[:1]), false, false)
	if ch, got := follow(t, f, in); ch != Grown || got != nil {
		t.Errorf("its first byte: %v %q", ch, got)
	}
	w.write(string(z[1:len(z)-4]), false, false)
	if ch, got := follow(t, f, in); ch != Grown || got != nil {
		t.Errorf("cut short: %v %q", ch, got)
	}
	w.write(string(z[len(z)-4:]), false, false)
	if ch, got := follow(t, f, in); ch != Grown || !reflect.DeepEqual(got, []string{`1:{"a":1}`, `2:{"b":2}`}) {
		t.Errorf("whole: %v %q", ch, got)
	}
	if ch, got := follow(t, f, in); ch != Unchanged || got != nil {
		t.Errorf("again: %v %q", ch, got)
	}
	w.write(string(gzipped(t, "{\"c\":3}\n")), true, false)
	if ch, got := follow(t, f, in); ch != Restarted || !reflect.DeepEqual(got, []string{`1:{"c":3}`}) {
		t.Errorf("written again: %v %q", ch, got)
	}
}

// A state saved (as JSON) and given to another Follower goes on where
// the first stopped; one saved before a rotation starts again.
func TestFollowStateSaved(t *testing.T) {
	w := &followFile{t: t, name: filepath.Join(t.TempDir(), "s.jsonl")}
	in := &Input{Tool: "t", Stderr: os.Stderr}
	w.write("{\"a\":1}\n{\"b\"", false, false)
	f := &Follower{Name: w.name}
	follow(t, f, in)
	saved, err := json.Marshal(f.State)
	if err != nil {
		t.Fatal(err)
	}
	restore := func() *Follower {
		g := &Follower{Name: w.name}
		if err := json.Unmarshal(saved, &g.State); err != nil {
			t.Fatal(err)
		}
		if g.State != f.State {
			t.Fatalf("read back %+v, want %+v", g.State, f.State)
		}
		return g
	}
	w.write(":2}\n", false, false)
	if ch, got := follow(t, restore(), in); ch != Grown || !reflect.DeepEqual(got, []string{`2:{"b":2}`}) {
		t.Errorf("restored: %v %q", ch, got)
	}
	w.write("{\"c\":3}\n", false, true)
	if ch, got := follow(t, restore(), in); ch != Restarted || !reflect.DeepEqual(got, []string{`1:{"c":3}`}) {
		t.Errorf("restored after a rotation: %v %q", ch, got)
	}
}

// FuzzFollower writes a file in random pieces (cut anywhere, in the
// middle of a line or of a BOM), truncates it, writes it again, replaces
// it, reading between: the records read since the last restart are those
// a one-shot read of the final file yields.
func FuzzFollower(f *testing.F) {
	f.Add([]byte("\ufeff{\"a\":1}\r\n\n{\"b\":\x002}\n{\"c\":3}\n"), []byte{0x11, 2, 0x31, 3, 0x21, 2, 0x51, 4, 2, 6, 0x41, 2})
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"), []byte{0x15, 2, 5, 0x80, 2, 9, 2, 1, 1, 1})
	f.Fuzz(fuzzOne)
}

func fuzzOne(t *testing.T, content, ops []byte) {
	if len(content) > 2*markSize || len(ops) > 64 {
		return // the fingerprint covers a rewrite of up to 2*markSize bytes
	}
	w := &followFile{t: t, name: filepath.Join(t.TempDir(), "s.jsonl")}
	in := &Input{Tool: "t", Stderr: &strings.Builder{}}
	fl := &Follower{Name: w.name}
	var cur []byte
	var got []string
	take := func(n int) string {
		n = min(n, len(content))
		s := content[:n]
		content = content[n:]
		return string(s)
	}
	read := func() {
		ch, recs := follow(t, fl, in)
		if ch == Restarted || ch == Gone {
			got = nil
		}
		got = append(got, recs...)
	}
	for _, op := range ops {
		n := int(op >> 3)
		switch op & 7 {
		case 0, 1:
			s := take(n + 1)
			cur = append(cur, s...)
			w.write(s, false, false)
		case 2, 3:
			read()
		case 4: // truncated, maybe to more than was read
			cur = cur[:len(cur)*n/32]
			w.write(string(cur), true, false)
		case 5: // written again
			cur = []byte(take(n + 1))
			w.write(string(cur), true, false)
		case 6: // replaced by another file
			cur = append([]byte(take(n)), take(n)...)
			w.write(string(cur), false, true)
		case 7:
			os.Remove(w.name)
			cur = nil
			read()
			w.write("", false, false)
		}
	}
	read()
	if want := oneShot(cur); !reflect.DeepEqual(got, want) {
		t.Errorf("followed %q,\nwant %q (file %q)", got, want, cur)
	}
}

// TestFollowerSchedules runs the fuzz target's property over random
// schedules with a fixed seed.
func TestFollowerSchedules(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	lines := "\ufeff{\"a\":1}\r\n\n{\"b\":\"x\u2028y\"}\n  \n{\"c\":\x00}\n{\"d\":4}\n{\"e\":[1,2,3]}\r\n{\"f\":6}\n"
	for i := range n {
		content := []byte(lines[i%7:] + lines)
		ops := make([]byte, 12+i%20)
		for j := range ops {
			ops[j] = byte((i*131 + j*71 + i*j*17) % 251)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { fuzzOne(t, content, ops) })
	}
}

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
