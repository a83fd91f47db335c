package cursor

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A handover names its caller by pid and start time where /proc tells the
// start time (Linux), by pid alone elsewhere (macOS, FreeBSD, Windows:
// played here by a /proc without the processes). Either way the commit
// that the same caller runs next is let through, and one run by another
// process is not.
func TestHandoverWithAndWithoutProc(t *testing.T) {
	defer func(old string) { procRoot = old }(procRoot)
	c := &Cursor{Hash: "5e827fee110eea7bc565be511ade1b0508972169ae215a370b66625cdf759b8e", Seq: []byte("3")}
	for _, root := range []string{"/proc", t.TempDir()} {
		procRoot = root
		me := proc(os.Getpid())
		if root == "/proc" && runtime.GOOS == "linux" && me.Start == "" {
			t.Errorf("no start time from %s", root)
		}
		if root != "/proc" && me.Start != "" {
			t.Errorf("a start time (%q) without /proc", me.Start)
		}
		state := filepath.Join(t.TempDir(), "s.cursor")
		if err := WriteHandover(state, c); err != nil {
			t.Fatal(err)
		}
		// The caller of this test process runs the commit: this process,
		// to CheckHandover, is that caller's child, as a --commit is.
		if err := CheckHandover(state, c); err != nil {
			t.Errorf("procRoot %s: the same caller's commit refused: %v", root, err)
		}
		// A handover another process saved is not this commit's.
		os.WriteFile(HandoverPath(state), []byte(`{"pending_sha256":"`+c.Hash+`","pending_seq":"3","caller":{"pid":1}}`), 0o644)
		if err := CheckHandover(state, c); !errors.Is(err, ErrNotHandedOver) {
			t.Errorf("procRoot %s: a handover of pid 1 let through: %v", root, err)
		}
	}
}
