package cli

import (
	"testing"
	"time"
)

// SetProgressClock makes the progress meters made until the test ends
// read the time from now: the tests of package cli_test run the tools
// with a clock of their own.
func SetProgressClock(t testing.TB, now func() time.Time) {
	old := progressClock
	progressClock = now
	t.Cleanup(func() { progressClock = old })
}
