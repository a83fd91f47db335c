package jsonl

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// Lines hands on every line once, whole, however the stream is cut.
func TestLineJoinerLines(t *testing.T) {
	stream := "a\n\nbc\ndef\r\ngh"
	want := []string{"a", "", "bc", "def\r"}
	for cut := range len(stream) + 1 {
		for cut2 := cut; cut2 <= len(stream); cut2++ {
			var j LineJoiner
			var got []string
			for _, p := range []string{stream[:cut], stream[cut:cut2], stream[cut2:]} {
				j.Lines([]byte(p), func(line []byte) bool {
					got = append(got, string(line))
					return true
				})
			}
			if !slices.Equal(got, want) || string(j.Rest()) != "gh" {
				t.Fatalf("cut at %d and %d: %q, rest %q", cut, cut2, got, j.Rest())
			}
		}
	}
}

// Complete says which lines were joined from pieces, and stops when told.
func TestLineJoinerComplete(t *testing.T) {
	var j LineJoiner
	type call struct {
		lines  string
		joined bool
	}
	var got []call
	each := func(lines []byte, joined bool) bool {
		got = append(got, call{string(lines), joined})
		return true
	}
	j.Complete([]byte("a\nb"), each)
	j.Complete([]byte("c"), each)
	j.Complete([]byte("d\ne\nf\ng"), each)
	want := []call{{"a\n", false}, {"bcd\n", true}, {"e\nf\n", false}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if j.Complete([]byte("\nh\n"), func([]byte, bool) bool { return false }) {
		t.Error("Complete went on after each said stop")
	}
}

// A huge line's buffer is let go once the line has passed.
func TestLineJoinerLetsGo(t *testing.T) {
	var j LineJoiner
	huge := []byte(strings.Repeat("x", 2<<20) + "\n")
	j.Lines(huge[:10], func([]byte) bool { return true })
	j.Lines(huge[10:], func([]byte) bool { return true })
	if j.pending != nil {
		t.Errorf("kept %d bytes", cap(j.pending))
	}
	j.Lines([]byte("a\nbc"), func([]byte) bool { return true })
	if !bytes.Equal(j.Rest(), []byte("bc")) {
		t.Error("the rest of a small line is lost")
	}
}

// A LineWriter hands on each whole line once, with its '\n', however the
// writes cut the stream; after the callee's error every write fails and
// nothing more is handed on.
func TestLineWriter(t *testing.T) {
	stream := "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\nrest"
	want := []string{"{\"a\":1}\n", "{\"b\":2}\n", "\n", "{\"c\":3}\n"}
	for cut := range len(stream) + 1 {
		var got []string
		w := LineWriter(func(line []byte) error {
			got = append(got, string(line))
			return nil
		})
		for _, p := range []string{stream[:cut], stream[cut:]} {
			if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("cut at %d: wrote %d of %d, %v", cut, n, len(p), err)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("cut at %d: %q", cut, got)
		}
	}
	w := LineWriter(func([]byte) error { return nil })
	w.Write([]byte("{}\n{\"cut"))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "not ended") {
		t.Errorf("a last line not ended: Close says %v", err)
	}
	full := errors.New("disk full")
	calls := 0
	w = LineWriter(func([]byte) error { calls++; return full })
	for range 2 {
		if n, err := w.Write([]byte(stream)); n != 0 || err != full {
			t.Fatalf("after the error: %d, %v", n, err)
		}
	}
	if calls != 1 {
		t.Fatalf("line called %d times after its error", calls)
	}
}
