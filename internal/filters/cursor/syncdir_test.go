package cursor

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A folder is synced after a rename where the system can (everywhere but
// Windows); where it cannot, a save succeeds without it, as on Windows.
func TestSyncDir(t *testing.T) {
	if want := runtime.GOOS != "windows"; dirSync != want {
		t.Errorf("dirSync = %v on %s, want %v", dirSync, runtime.GOOS, want)
	}
	defer func(old bool) { dirSync = old }(dirSync)
	missing := filepath.Join(t.TempDir(), "missing")

	dirSync = true
	if err := syncDir(t.TempDir()); err != nil {
		t.Errorf("sync of a folder: %v", err)
	}
	if err := syncDir(missing); err == nil {
		t.Error("sync of a missing folder: no error")
	}

	dirSync = false // Windows
	if err := syncDir(missing); err != nil {
		t.Errorf("without folder sync a folder is not even opened, yet: %v", err)
	}
	path := filepath.Join(t.TempDir(), "state")
	if err := WriteFileAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new\n" {
		t.Errorf("saved %q", data)
	}
}
