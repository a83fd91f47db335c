package cli

import "testing"

// A build stamped by make dist (-ldflags -X .../cli.Commit=...) names that
// commit, whatever Go's own VCS stamping says (it may be off).
func TestVersionStampedCommit(t *testing.T) {
	defer func(v, c string) { Version, Commit = v, c }(Version, Commit)
	Version, Commit = "1.2.3", "0123456789ab-dirty"
	if got, want := version(), "1.2.3 (0123456789ab-dirty)"; got != want {
		t.Errorf("version() = %q, want %q", got, want)
	}
}
