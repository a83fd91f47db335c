package stop

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// mark is the signal Err sends itself: one a tool does nothing else with,
// numbered above SIGINT and SIGTERM, and harmless should it come from
// outside (a terminal resized: Err then returns a moment early).
func init() { mark = syscall.SIGWINCH }

// raise sends sig to the thread tid (tgkill), 0 being this one: the
// kernel delivers it there, with what is pending for the process, before
// that thread runs on (kill(2) of the process would pick a thread).
func raise(tid int, sig syscall.Signal) error {
	if tid == 0 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid = syscall.Gettid()
	}
	return syscall.Tgkill(syscall.Getpid(), tid, sig)
}

// threads are the process's threads, by id.
func threads() []int {
	entries, _ := os.ReadDir("/proc/self/task")
	var tids []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}
