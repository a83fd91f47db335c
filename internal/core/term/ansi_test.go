package term

import "testing"

// The sequences are the bytes a terminal reads: ESC [ parameters letter.
func TestSequences(t *testing.T) {
	for got, want := range map[string]string{
		Reset: "\x1b[0m", Bold: "\x1b[1m", Red: "\x1b[31m",
		EraseLine: "\x1b[K", EraseBelow: "\x1b[J",
		CursorUp(12): "\x1b[12A",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
