package memory

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestHeapFloor: the floor stays while the heap is smaller than it, and is
// let go once the live heap outgrows it, so that a large state is
// collected as without it.
func TestHeapFloor(t *testing.T) {
	size := liveHeap() + 4<<20 // larger than what the other tests left
	f := &heapFloor{ballast: make([]byte, size), size: size}
	f.arm()
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if f.released() {
		t.Fatal("the floor was let go under a heap smaller than it")
	}
	big := make([][]byte, (size+5<<20)/(64<<10))
	for i := range big {
		big[i] = make([]byte, 64<<10)
	}
	for range 50 {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if f.released() {
			runtime.KeepAlive(big)
			return
		}
	}
	t.Fatalf("the floor of %d bytes was kept under a heap of %d", size, liveHeap())
}
