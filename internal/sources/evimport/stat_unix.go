//go:build unix

package evimport

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// statDir stats the files at the indexes of one folder through a handle
// on the folder (fstatat): the folder's path is looked up once, not for
// each of its files.
func statDir(files []*logFile, of []int, stats []fileStat) {
	d, err := os.Open(filepath.Dir(files[of[0]].name))
	if err != nil {
		for _, i := range of {
			stats[i] = statPath(files[i].name)
		}
		return
	}
	defer d.Close()
	fd := int(d.Fd())
	for _, i := range of {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, filepath.Base(files[i].name), &st, 0); err != nil {
			continue
		}
		stats[i] = fileStat{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: st.Mtim.Nano(), ok: true}
	}
}
