package progress

import (
	"testing"
	"time"
)

// SetClock makes the progress meters made until the test ends read the
// time from now: the tests of package progress_test run the tools with a
// clock of their own.
func SetClock(t testing.TB, now func() time.Time) {
	old := progressClock
	progressClock = now
	t.Cleanup(func() { progressClock = old })
}
