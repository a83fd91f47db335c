package summary

import (
	"testing"
)

func TestParseBy(t *testing.T) {
	tests := []struct {
		in    string
		names []string
		canon string
		err   bool
	}{
		{"run", []string{"run_id"}, "run", false},
		{"agent,tool", []string{"agent_id", "tool"}, "agent,tool", false},
		{" day , hour ", []string{"day", "hour"}, "day,hour", false},
		{"model,kind", []string{"model", "kind"}, "model,kind", false},
		{"payload.model", []string{"payload.model"}, "payload.model", false},
		{"agent,payload.args.path", []string{"agent_id", "payload.args.path"}, "agent,payload.args.path", false},
		{"none", nil, "none", false},
		{"none,run", nil, "", true},
		{"run,run", nil, "", true},
		{"", nil, "", true},
		{"run,", nil, "", true},
		{"payload..x", nil, "", true},
		{"agnet", nil, "", true},
		{"week,month", []string{"week", "month"}, "week,month", false},
		{"agent,week", []string{"agent_id", "week"}, "agent,week", false},
		{"month,month", nil, "", true},
		{"fortnight", nil, "", true},
		{"runs", nil, "", true},
		{"agent,sauce", nil, "", true},
		{"source,session", []string{"source", "session"}, "source,session", false},
	}
	for _, tt := range tests {
		keys, err := ParseBy(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseBy(%q): err %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if tt.err {
			continue
		}
		var names []string
		for _, k := range keys {
			names = append(names, k.Name)
		}
		if len(names) != len(tt.names) {
			t.Errorf("ParseBy(%q) = %v, want %v", tt.in, names, tt.names)
			continue
		}
		for i := range names {
			if names[i] != tt.names[i] {
				t.Errorf("ParseBy(%q) = %v, want %v", tt.in, names, tt.names)
			}
		}
		if got := ByString(keys); got != tt.canon {
			t.Errorf("ByString(ParseBy(%q)) = %q, want %q", tt.in, got, tt.canon)
		}
	}
}

// A word that is neither a grouping nor a path with a dot is refused, with
// the list of groupings and the nearest one when it is a likely typo.
func TestParseByDidYouMean(t *testing.T) {
	list := "one of run, agent, role, tool, model, kind, day, hour, week, month, session, project, source, host, none, or a field path with a dot (payload.model)"
	for _, tt := range []struct{ in, want string }{
		{"agnet", `--by "agnet": "agnet" is not a grouping (did you mean agent?): ` + list},
		{"runs", `--by "runs": "runs" is not a grouping (did you mean run?): ` + list},
		{"Day", `--by "Day": "Day" is not a grouping (did you mean day?): ` + list},
		{"agent,toll", `--by "agent,toll": "toll" is not a grouping (did you mean tool?): ` + list},
		{"nnoe", `--by "nnoe": "nnoe" is not a grouping (did you mean none?): ` + list},
		{"weak", `--by "weak": "weak" is not a grouping (did you mean week?): ` + list},
		{"months", `--by "months": "months" is not a grouping (did you mean month?): ` + list},
		{"year", `--by "year": "year" is not a grouping: ` + list},
		{"x", `--by "x": "x" is not a grouping: ` + list},
	} {
		_, err := ParseBy(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseBy(%q): %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// Groupings by what names runs report their runs' outcomes and wall
// times; those by what names events report none. session, project and
// source are the run's (evimport writes them on every event of a run);
// a field path, even one ending in session, names events.
func TestNamesEvents(t *testing.T) {
	for by, want := range map[string]bool{
		"run": false, "agent": false, "day": false, "week": false, "session": false, "project": false, "source": false,
		"tool": true, "kind": true, "model": true, "role": true, "payload.session": true, "payload.source": true,
	} {
		keys, err := ParseBy(by)
		if err != nil {
			t.Fatal(err)
		}
		if got := keys[0].NamesEvents(); got != want {
			t.Errorf("--by %s: NamesEvents() = %v, want %v", by, got, want)
		}
	}
}
