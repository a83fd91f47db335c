package cli

import (
	"errors"
	"testing"
)

// kong's own usage messages are said as the tools say theirs.
func TestKongMessage(t *testing.T) {
	for in, want := range map[string]string{
		`--format must be one of "auto","envelope","bare","pretty","pi" but got "xx"`: `--format "xx": one of auto, envelope, bare, pretty, pi`,
		`unknown flag --bi, did you mean one of "--by", "-b", "--tz"?`:                `unknown flag --bi, did you mean --by?`,
		`unknown flag --sinse, did you mean "--since"?`:                               `unknown flag --sinse, did you mean --since?`,
		`unknown flag --zzzzzz, did you mean one of "-b", "--tz"?`:                    `unknown flag --zzzzzz`,
		`unexpected argument x`: `unexpected argument x`,
	} {
		if got := kongMessage(errors.New(in)).Error(); got != want {
			t.Errorf("kongMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
