package jsonl

import "sync/atomic"

// Meter follows how far an Input has read, for a progress display on the
// terminal that Stderr is (see internal/shell/cli's NewProgress). Its methods are
// called on the goroutine that reads the input, with the output guard held
// (see AtLineEnd), except Clear when a signal stops the tool.
type Meter interface {
	// Read is told of every read of an input: n bytes of the input as
	// it is stored, before decompression, so that for a gzip or zstd
	// file the count ends at the file's size.
	Read(n int)
	// Clear takes the display off the terminal. The Input calls it
	// before every message it prints, when Each returns, and when a
	// signal stops the tool (AtLineEnd) while Each runs.
	Clear()
}

// stopMeter is the Clear of the Meter of the Input whose Each is running,
// for AtLineEnd.
var stopMeter atomic.Pointer[func()]
