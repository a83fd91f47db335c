package cursor

import (
	"os"
	"runtime"
)

// dirSync says whether this system can fsync a folder. Windows cannot: a
// folder opened for reading refuses FlushFileBuffers ("Access is
// denied"), and no call makes a rename durable there but the rename
// itself, which NTFS journals. Saving a state there would otherwise fail
// after the new state was in place (docs/platforms.md).
var dirSync = runtime.GOOS != "windows"

// syncDir makes a rename in dir durable: an fsync of the folder, where
// the system has one (dirSync).
func syncDir(dir string) error {
	if !dirSync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
