package evimport

import (
	"strings"
	"testing"
)

// opencodePassedOver drops a step part's row before it is a line only
// when the conversion would pass it over anyway: a valid step-start or
// step-finish, its type spelled plainly. Any other row is kept, whatever
// its output says.
func TestOpencodePassedOver(t *testing.T) {
	for data, want := range map[string]bool{
		`{"type":"step-start"}`:                                                           true,
		`{"cost":0.01,"tokens":{"input":3},"type":"step-finish"}`:                         true,
		`{"type":"step\u002dstart"}`:                                                      false, // kept: the conversion passes it over
		`{"type":"step-finish","cost":}`:                                                  false, // kept, for the conversion to report
		`{"type":"tool","state":{"output":"\"type\":\"step-start\""}}`:                    false,
		`{"type":"text","text":"step-start"}`:                                             false,
		`{"text":"no step here","type":"reasoning"}`:                                      false,
		`{"type":"step-start","snapshot":"` + strings.Repeat("0", opencodeStepMax) + `"}`: false, // kept: too large to look at
	} {
		if got := opencodePassedOver([]byte(data)); got != want {
			t.Errorf("%s: passed over %v, want %v", data, got, want)
		}
	}
}
