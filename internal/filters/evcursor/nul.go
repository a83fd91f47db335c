package evcursor

import "os"

// windowsNul reports whether stdout, whose Stat is fi, is Windows's NUL.
// os.SameFile cannot tell there: os.Stat("NUL") is a FileInfo of Go's own,
// the same file as none. So NUL is told by what it is: a character device
// that is not a console. Elsewhere /dev/null is the same file as
// os.DevNull (see discarded).
func windowsNul(fi os.FileInfo, console bool) bool {
	return fi.Mode()&os.ModeCharDevice != 0 && !console
}
