// Package stop keeps the promise that a signal received is a signal
// obeyed. SIGINT or SIGTERM may come at the very moment the input ends (a
// process-group kill, as systemd sends, closes the pipe too): the tool
// must then not go on to write its report, save a cursor or exit 0 as if
// nothing had come. Go hands a signal over on a goroutine of its own, a
// moment after the kernel delivered it; Err is the barrier a tool calls
// before it commits anything, which waits until every signal delivered so
// far has been handed over.
package stop

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Error is how a run ends that a signal stopped: exit status 128 + the
// signal, as a shell reports a process killed by it. It prints nothing:
// the status says it.
type Error struct{ Signal syscall.Signal }

func (e *Error) Error() string { return fmt.Sprintf("stopped by %v", e.Signal) }

// ExitCode is 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
func (e *Error) ExitCode() int { return 128 + int(e.Signal) }

var (
	watching atomic.Bool
	got      atomic.Int32   // the first signal received, 0 before it, committed after Commit
	late     atomic.Int32   // signals received after Commit
	marks    chan struct{}  // a sentinel of Err came through
	barrier  sync.Mutex     // one Err at a time: marks are not told apart
	mark     syscall.Signal // see raise
	exit     = os.Exit      // for the second signal
	missed   atomic.Int32   // marks that did not come through in time
)

// Watch makes SIGINT and SIGTERM stop the tool: the first is recorded
// (Err returns it from then on) and first is called with it on a
// goroutine of its own; a second one ends the process at once. Call it
// once, at start-up, in a real process.
func Watch(first func(*Error)) {
	sigs := make(chan os.Signal, 8)
	marks = make(chan struct{}, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if mark != 0 {
		signal.Notify(sigs, mark)
	}
	watching.Store(true)
	go func() {
		for s := range sigs {
			sig := s.(syscall.Signal)
			if sig == mark {
				select {
				case marks <- struct{}{}:
				default:
				}
				continue
			}
			if got.CompareAndSwap(0, int32(sig)) {
				go first(&Error{Signal: sig})
				continue
			}
			if got.Load() == committed && late.Add(1) == 1 {
				continue // the result is committed: the run ends with it
			}
			exit(128 + int(sig))
		}
	}()
}

// Err returns the *Error of the signal received, or nil. Before it
// answers nil it makes sure no signal is on its way: a signal the kernel
// delivered to the process before this call, and not yet handed over to
// the tool, is waited for. Without Watch it is nil at once.
func Err() error {
	if !watching.Load() {
		return nil
	}
	if e := received(); e != nil {
		return e
	}
	if mark != 0 {
		barrier.Lock()
		// First this thread: raise returns only once it has run the
		// handlers of the signals still pending for the process (the
		// kernel delivers them on the way back from the call). Then every
		// thread: a thread that took a signal before is done with its
		// handler before it runs the mark's (the handler blocks the
		// others). Go hands signals over in the order they came (a lower
		// number first among those that came together: mark is above
		// SIGTERM's), so once a mark came through, every signal handled
		// before it did too.
		for _, tid := range append([]int{0}, threads()...) {
			drain()
			if raise(tid, mark) == nil {
				select {
				case <-marks:
				case <-time.After(time.Second):
					missed.Add(1)
				}
			}
		}
		barrier.Unlock()
	}
	return received()
}

// committed is got once Commit decided that the run goes on to its end.
const committed = -1

// Commit decides, once, whether the run commits its result (writes its
// report, saves a cursor, ends with status 0): when no signal came before
// it, waited for as Err does, it returns nil and a first signal that comes
// after is ignored, so that the status says the result is whole; else it
// returns the signal's *Error, and the result must not be committed.
// Called again it gives the same answer.
func Commit() error {
	if got.Load() == committed {
		return nil // decided: no second wait
	}
	if err := Err(); err != nil || !watching.Load() {
		return err
	}
	if got.CompareAndSwap(0, committed) || got.Load() == committed {
		return nil
	}
	return received()
}

// Received returns the *Error of a signal received, or nil, without
// waiting for one on its way (see Err): for where no input just ended.
func Received() error { return received() }

func received() error {
	if s := got.Load(); s > 0 {
		return &Error{Signal: syscall.Signal(s)}
	}
	return nil
}

func drain() {
	for {
		select {
		case <-marks:
		default:
			return
		}
	}
}
