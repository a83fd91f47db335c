package stop

import (
	"bytes"
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
	if tid == process {
		return syscall.Kill(syscall.Getpid(), sig)
	}
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

// markBlocked reports whether this thread blocks mark, as its SigBlk line
// in /proc says (a mask in hex, bit n-1 for signal n).
func markBlocked() bool {
	status, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(status, []byte("\nSigBlk:\t"))
	hex, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(hex), 16, 64)
	return ok && err == nil && mask&(1<<(mark-1)) != 0
}
