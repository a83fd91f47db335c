package stop

import "syscall"

// raise and threads are never called: Windows has no signal to send
// oneself, and Err answers from what was received (mark stays 0).
func raise(int, syscall.Signal) error { return syscall.EWINDOWS }

func threads() []int { return nil }
