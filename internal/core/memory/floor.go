package memory

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// A heap floor keeps the collector from running at every 20% of growth
// while the heap is small. evsum runs with GOGC=20, so that a state of
// 100,000 runs stays inside 64 MB; but from a heap of 1 MB, 20% is a
// collection every 200 KB, and a 100 MB file took 16 collections, a
// sixth of the run. The floor is a pointer-free allocation that nothing
// ever writes: its pages are never touched, so it takes no memory (the
// kernel maps them only when written), yet the collector counts it as
// live, and a heap goal 20% above it lets a few MB be allocated between
// collections (5 for that file instead of 16, 2 MB more resident). Once
// the heap outgrows it, the floor is let go, so that a large state is
// collected exactly as before.
type heapFloor struct {
	ballast []byte // written only by check, once
	size    uint64
	gone    atomic.Bool
}

// startFloor lays a floor of size bytes under the heap.
func startFloor(size int) {
	floor = &heapFloor{ballast: make([]byte, size), size: uint64(size)}
	floor.arm()
}

// floorWatch is collected at the next collection, whose end runs its
// finalizer: the floor looks at the heap once per collection. (It holds
// a pointer, so the allocator does not batch it with other tiny objects,
// which would keep it alive.)
type floorWatch struct{ f *heapFloor }

func (f *heapFloor) arm() {
	runtime.SetFinalizer(&floorWatch{f}, func(w *floorWatch) { w.f.check() })
}

// check runs after a collection: the floor is let go once the live heap
// without it is as large as it, else it watches the next collection.
func (f *heapFloor) check() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() >= 2*f.size {
		f.ballast = nil
		f.gone.Store(true)
		return
	}
	f.arm()
}

// released reports whether the floor was let go.
func (f *heapFloor) released() bool { return f.gone.Load() }
