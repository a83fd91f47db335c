package jsonl

import (
	"sync"
	"sync/atomic"
	"time"
)

// Ordered runs jobs on goroutines of its own and takes them back, once
// done, in the order they were sent, on the goroutine that sends them: the
// work of a tool on several cores whose output must be that of one loop.
// It keeps the jobs taken to fill again (a job's room is reused, not
// allocated anew) and bounds the work sent ahead of the taking: at most
// Ahead jobs, and past MaxBytes of them only the newest.
//
// The methods but Close are called on one goroutine, the sending one.
type Ordered[W, J any] struct {
	work func(W, *J)
	take func(*J) error

	// Idle releases the output guard (Waiting) while the sending
	// goroutine waits for a worker: for a tool that writes nothing
	// until its jobs are all taken, whose wait for the workers is then
	// a wait like one for input, where a signal may stop it.
	Idle bool
	// Tick, when set, is called every tick while the sending goroutine
	// waits for a worker, and once the wait is over: a progress meter
	// follows the work.
	Tick func()

	stealing bool
	thief    W // the sending goroutine's worker value, with Steal

	ahead    int // jobs pending at most once Send returns
	maxBytes int // bytes pending past which only the newest job stays

	jobs    chan *orderedJob[J]
	pending []*orderedJob[J] // sent, not taken, oldest first
	free    []*orderedJob[J] // taken, to fill again
	next    *orderedJob[J]   // the job Next returned
	bytes   int              // the sizes of the pending jobs
	err     error            // the first error take returned
	stopped atomic.Bool      // Close was called: the workers skip what is left
	wg      sync.WaitGroup
}

type orderedJob[J any] struct {
	job  J
	size int
	done chan struct{} // one token once the job is done; made once, reused
	// claimed is set by whoever does the work: a worker, or with Steal
	// the sending goroutine. A job done by the latter is still in the
	// jobs channel, and may be again once reused: a worker skips it there
	// unless claimed was cleared, by Send, and then does it once.
	claimed atomic.Bool
}

// NewOrdered starts workers goroutines, each with a worker value of its
// own from newWorker (called here, in order), that run work on the jobs
// sent; take is called with each job done, in the order sent. ahead (at
// least workers) bounds the jobs pending, maxBytes (0: no bound) the sum
// of their sizes as Send is told them.
func NewOrdered[W, J any](workers, ahead, maxBytes int, newWorker func() W, work func(W, *J), take func(*J) error) *Ordered[W, J] {
	workers = max(workers, 1)
	o := &Ordered[W, J]{work: work, take: take, ahead: max(ahead, workers), maxBytes: maxBytes}
	// never full, even with the copies Steal leaves: Send does not wait
	// for a worker
	o.jobs = make(chan *orderedJob[J], 2*(o.ahead+1))
	for range workers {
		w := newWorker()
		o.wg.Go(func() {
			for j := range o.jobs {
				if !j.claimed.CompareAndSwap(false, true) {
					continue // done by the sending goroutine (Steal)
				}
				if !o.stopped.Load() {
					work(w, &j.job)
				}
				j.done <- struct{}{}
			}
		})
	}
	return o
}

// Next returns the job to fill and send next: one taken before, as take
// left it, or a new one.
func (o *Ordered[W, J]) Next() *J {
	if o.next == nil {
		if k := len(o.free); k > 0 {
			o.next = o.free[k-1]
			o.free[k-1] = nil
			o.free = o.free[:k-1]
		} else {
			o.next = &orderedJob[J]{done: make(chan struct{}, 1)}
		}
	}
	return &o.next.job
}

// Send hands the job Next returned, of size bytes, to a worker, then takes
// the oldest jobs until the bounds hold again. It returns the first error
// take returned: nothing more is taken then.
func (o *Ordered[W, J]) Send(size int) error {
	o.Next()
	j := o.next
	o.next = nil
	j.size = size
	o.pending = append(o.pending, j)
	o.bytes += size
	j.claimed.Store(false) // after it is filled: a worker may take it from here on
	o.jobs <- j
	for o.err == nil && (len(o.pending) > o.ahead || o.maxBytes > 0 && len(o.pending) > 1 && o.bytes > o.maxBytes) {
		o.takeOldest()
	}
	return o.err
}

// Here takes every job pending, then runs work on the job Next returned
// on this goroutine, with w, and takes it: a job too big to have another
// beside it (a line of many MiB).
func (o *Ordered[W, J]) runHere(w W) error {
	if err := o.Drain(); err != nil {
		return err
	}
	o.Next()
	j := o.next
	o.next = nil
	o.work(w, &j.job)
	o.err = o.take(&j.job)
	o.free = append(o.free, j)
	return o.err
}

// Steal has the sending goroutine, with w, do the work of the jobs no
// worker has begun instead of waiting: the oldest, when it would wait for
// it, and while it waits for the oldest the ones after it. Workers busy, or
// not running (the machine's other cores taken by other programs), hold up
// the taking less. Call it before the first Send.
func (o *Ordered[W, J]) steal(w W) { o.stealing, o.thief = true, w }

// await returns once j is done: done here when no worker has begun it,
// else waited for, doing meanwhile the jobs after it that no worker has
// begun (Steal), each then taken as a worker's.
func (o *Ordered[W, J]) await(j *orderedJob[J]) {
	if j.claimed.CompareAndSwap(false, true) {
		o.work(o.thief, &j.job)
		return
	}
	for _, k := range o.pending {
		select {
		case <-j.done:
			return
		default:
		}
		if k.claimed.CompareAndSwap(false, true) {
			o.work(o.thief, &k.job)
			k.done <- struct{}{}
		}
	}
	o.wait(j)
}

// tick is how often Tick is called while the sending goroutine waits.
const tick = 100 * time.Millisecond

// wait waits for j to be done, with the output guard released when Idle,
// calling Tick (with the guard held) every tick meanwhile and once done.
func (o *Ordered[W, J]) wait(j *orderedJob[J]) {
	var ticks <-chan time.Time // none without Tick
	if o.Tick != nil {
		t := time.NewTicker(tick)
		defer t.Stop()
		ticks = t.C
	}
	for waiting := true; waiting; {
		wait := func() {
			select {
			case <-j.done:
				waiting = false
			case <-ticks:
			}
		}
		if o.Idle {
			Waiting(wait)
		} else {
			wait()
		}
		if o.Tick != nil {
			o.Tick()
		}
	}
}

// Drain takes every job pending, and returns the first error take returned.
func (o *Ordered[W, J]) Drain() error {
	for o.err == nil && len(o.pending) > 0 {
		o.takeOldest()
	}
	return o.err
}

func (o *Ordered[W, J]) takeOldest() {
	j := o.pending[0]
	o.pending[0] = nil // not kept alive under the slice
	o.pending = o.pending[1:]
	o.bytes -= j.size
	if o.stealing {
		o.await(j)
	} else {
		o.wait(j)
	}
	o.err = o.take(&j.job)
	o.free = append(o.free, j)
}

// Close stops the workers once they are done with the jobs they hold and
// waits for them (what the worker values hold may be read afterwards);
// the jobs pending are left untaken and their work skipped.
func (o *Ordered[W, J]) Close() {
	o.stopped.Store(true)
	close(o.jobs)
	o.wg.Wait()
}
