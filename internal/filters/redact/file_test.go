package redact

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	r := New()
	err := r.Load("rules.txt", []byte(`# our own
ticket	TICKET-[0-9]{6}
internal-host   (?i)\b[a-z0-9-]+\.corp\.acme\.internal\b

vault	vault token: (?P<secret>hvs\.[A-Za-z0-9]{20,})
-secret-assignment
`))
	if err != nil {
		t.Fatal(err)
	}
	line := envelope(1, "TICKET-123456 on build-7.corp.acme.internal, vault token: hvs.ABCDEFGHIJKLMNOPQRSTUV and DB_PASSWORD=hunter2hunter2 ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6")
	out, changed := r.Line(nil, []byte(line))
	if !changed {
		t.Fatal("nothing found")
	}
	want := envelope(1, "[REDACTED:ticket] on [REDACTED:internal-host], vault token: [REDACTED:vault] and DB_PASSWORD=hunter2hunter2 [REDACTED:github-token]")
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	wantCounts := []Count{{"github-token", 1}, {"internal-host", 1}, {"ticket", 1}, {"vault", 1}}
	if got := r.Counts(); !slices.Equal(got, wantCounts) {
		t.Errorf("counts %v", got)
	}
}

// An added rule that overlaps a built-in one: the one that starts first
// wins, the longer at the same start.
func TestLoadOverlap(t *testing.T) {
	r := New()
	if err := r.Load("r", []byte("ghp\tghp_[A-Za-z0-9]{4}\nlong\tcd ghp_[A-Za-z0-9]+\n")); err != nil {
		t.Fatal(err)
	}
	out, _ := r.Line(nil, []byte(`{"a":"ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6 then cd ghp_abc"}`))
	if string(out) != `{"a":"[REDACTED:github-token] then [REDACTED:long]"}` {
		t.Error(string(out))
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ rules, msg string }{
		{"ticket", "rules.txt:1: want NAME, a TAB and a regular expression"},
		{"# c\nticket\tTICKET-(", "rules.txt:2: ticket: error parsing regexp"},
		{"any\tx*", "rules.txt:1: any: the regular expression matches the empty string"},
		{"jwt\tx", "rules.txt:1: jwt is a built-in rule (to turn it off: -jwt)"},
		{"a\tx\na\ty", "rules.txt:2: rule a is given twice"},
		{"a/b\tx", `rules.txt:1: "a/b": a rule's name is letters, digits, _ . and -`},
		{"-nope", "rules.txt:1: -nope: no built-in rule is called nope"},
	} {
		err := New().Load("rules.txt", []byte(tc.rules))
		if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want %s", tc.rules, err, tc.msg)
		}
	}
}

// Every built-in rule can be turned off, and then finds nothing.
func TestOff(t *testing.T) {
	for _, f := range fakes {
		r := New()
		if err := r.Load("r", []byte("-"+f.rule)); err != nil {
			t.Fatal(err)
		}
		out, _ := r.Line(nil, []byte(envelope(1, fmt.Sprintf(f.context, f.secret))))
		if strings.Contains(string(out), "[REDACTED:"+f.rule+"]") {
			t.Errorf("%s off, still: %s", f.rule, out)
		}
	}
}
