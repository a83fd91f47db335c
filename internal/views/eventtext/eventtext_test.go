package eventtext

import "testing"

func TestText(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain \u00e9"`: "plain é",
		`[{"type":"text","text":"a"},{"type":"tool_call","name":"bash"},{"text":"b"}]`: "ab",
		`{"text":"inside"}`: "inside",
		`42`:                "",
		`[1,2]`:             "",
	} {
		if got := Text([]byte(raw)); got != want {
			t.Errorf("Text(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestBestArg(t *testing.T) {
	for raw, want := range map[string]string{
		`{"command":"uname -a","timeout":5}`: "uname -a",
		`{"argv":["go","test","./..."]}`:     "go test ./...",
		`{"root":".","pattern":"x|y"}`:       "x|y",
		`"{\"path\":\"a.go\"}"`:              "a.go", // arguments sent as a JSON text
		`{"a": 1,  "b": 2}`:                  `{"a":1,"b":2}`,
		`{"comm`:                             `{"comm`, // pieces that never completed
		`{"command":"line 1\nline 2"}`:       "line 1 ⏎ line 2",
	} {
		if got := BestArg([]byte(raw)); got != want {
			t.Errorf("BestArg(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestModelAndCalls(t *testing.T) {
	if got := Model([]byte(`{"provider":"p","model":"m-1"}`)); got != "m-1" {
		t.Errorf("Model of an object: %q", got)
	}
	if got := Calls([]byte(`[{"type":"tool_call","name":"bash"},{"type":"tool_call","name":"read"}]`)); got != "calls bash, read" {
		t.Errorf("Calls: %q", got)
	}
	if got := Seconds([]byte("34.62")); got != "34.6s" {
		t.Errorf("Seconds: %q", got)
	}
	if got := Seconds([]byte("0")); got != "" {
		t.Errorf("Seconds(0): %q, want nothing", got)
	}
}

// Every cost a view for people shows has evsum's 4 decimals, so that the
// costs of a list line up and read alike, whatever their size.
func TestCost(t *testing.T) {
	for nano, want := range map[int64]string{
		0: "$0.0000", 1_630_000: "$0.0016", 136_146_450: "$0.1361", 34_732_466_650: "$34.7325",
		50_000: "$0.0001", 1_234_567_890_123: "$1,234.5679",
	} {
		if got := Cost(nano); got != want {
			t.Errorf("Cost(%d) = %q, want %q", nano, got, want)
		}
	}
}
