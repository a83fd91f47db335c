//go:build unix

package jsonl

import (
	"io/fs"
	"syscall"
)

// FileID is the file's device and inode: what names it whatever its
// name, so that another file under the same name is seen.
func FileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
