package stop

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// mark is the signal Err sends itself: one a tool does nothing else with
// (no tool starts a child), numbered above SIGINT and SIGTERM, harmless
// should it come from outside (Err then returns a moment early), and one
// Go unblocks on every thread even when the parent started the tool with
// it blocked. SIGWINCH was the mark until perf stat, which blocks it, made
// every mark sent to a thread wait its second out.
func init() { mark = syscall.SIGCHLD }

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
