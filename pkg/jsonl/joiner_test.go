package jsonl

import (
	"bytes"
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
