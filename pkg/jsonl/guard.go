package jsonl

import (
	"sync"
	"sync/atomic"
	"time"
)

// guard, once GuardOutput was called, is held by the goroutine that reads
// the input (the tool's main goroutine) while it works, and released only
// while it waits for input, after the output was flushed: then every line
// written is whole. A signal handler takes it (AtLineEnd) to stop the tool
// between two lines instead of in the middle of one.
var guard atomic.Pointer[sync.Mutex]

// GuardOutput makes the calling goroutine, the one that will read the
// input, hold the output guard from now on (see AtLineEnd). Call it once,
// at start-up, in a real process.
func GuardOutput() {
	mu := new(sync.Mutex)
	mu.Lock()
	guard.Store(mu)
}

// AtLineEnd waits, up to d, until the tool is waiting for input with its
// output flushed to the end of a line, and then keeps it from writing
// anything more. It reports whether that happened in time (false also
// without GuardOutput). Output blocked on a reader that does not read
// cannot get there: hence the limit.
func AtLineEnd(d time.Duration) bool {
	mu := guard.Load()
	if mu == nil {
		return false
	}
	got := make(chan struct{})
	go func() {
		mu.Lock()
		close(got)
	}()
	select {
	case <-got:
		// The tool waits for input: nothing draws the progress line,
		// which is taken off the terminal before the tool exits.
		if clear := stopMeter.Load(); clear != nil {
			(*clear)()
		}
		return true
	case <-time.After(d):
		return false
	}
}

// Waiting runs wait, something that writes nothing (waiting for a reader,
// a lock), with the output guard released, as a read of input is.
func Waiting(wait func()) {
	if mu := guard.Load(); mu != nil {
		mu.Unlock()
		defer mu.Lock()
	}
	wait()
}

// Writing runs write, which writes output, on a goroutine other than the
// reading one, holding the output guard: it waits until the reading
// goroutine waits (for input, or in Waiting), and a signal meanwhile stops
// the tool after write, not in the middle of a line. (ev2otlp encodes
// its lines on a goroutine of its own.)
func Writing(write func()) {
	if mu := guard.Load(); mu != nil {
		mu.Lock()
		defer mu.Unlock()
	}
	write()
}
