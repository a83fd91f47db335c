package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// What make agents-latest prints of a release that writes a record type
// evimport does not know: the type, how many records, and the members
// they have, from the records themselves (evimport's note), under the
// agent and the version run. The session is a fixture of the harness's
// shape (testdata/drift): nothing is installed.
func TestDriftReport(t *testing.T) {
	dir := t.TempDir()
	unpackHome(t, "testdata/drift/claude-2.1.400.txtar", dir)
	home := filepath.Join(dir, "home")
	a := &npmAgent{name: "claude-code", title: "Claude Code", version: claudeCodeVersion, tested: "2.1.400"}
	stdout, stderr, err := runEvimport(home, filepath.Join(home, ".claude", "projects"))
	got := a.evimportDrift(stderr, err)
	want := []string{
		`new content block type "hologram" (1 record): members frames, type`,
		`new record type "foo" (3 records): members id, payload.bar, payload.baz, sessionId, timestamp, type`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift:\n%s\nwant\n%s\n(evimport's stderr:\n%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
	}
	// the rest of the session is read as before
	if !strings.Contains(string(stdout), `"text":"Two files: notes.txt and plan.md."`) {
		t.Errorf("the reply is not read:\n%s", stdout)
	}
}

// What evimport says besides the unknown types is drift too, as it is,
// and so is its failure; the count of the unknown types is left out.
func TestEvimportDriftLines(t *testing.T) {
	a := &npmAgent{name: "codex", tested: "0.172.0"}
	for _, tt := range []struct {
		name, stderr string
		want         []string
	}{
		{"nothing", "", nil},
		{"a record type in a payload",
			"evimport: 1 record of an unknown type skipped: codex event_msg thread_renamed (1)\n" +
				"evimport: codex event_msg thread_renamed (1 record): members payload.name, payload.type, timestamp, type\n",
			[]string{`new record type "event_msg thread_renamed" (1 record): members payload.name, payload.type, timestamp, type`}},
		{"a record without members",
			"evimport: 2 records of unknown types skipped: codex (none) (2)\nevimport: codex (none) (2 records): no members\n",
			[]string{`new record type "(none)" (2 records): no members`}},
		{"another note",
			"evimport: no price for model gpt-9 (2 calls): its model_result events say \"unpriced\":true and have no cost_usd (--prices FILE adds prices)\n",
			[]string{`evimport: no price for model gpt-9 (2 calls): its model_result events say "unpriced":true and have no cost_usd (--prices FILE adds prices)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := a.evimportDrift(tt.stderr, nil)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A call's tokens that are not the script's are named one by one, with
// the script's beside them.
func TestTokenDrift(t *testing.T) {
	script := Usage{Input: 6200, CacheRead: 6000, Output: 41, Reasoning: 12}
	for _, tt := range []struct {
		name string
		got  Usage
		want string
	}{
		{"equal", script, ""},
		{"input", Usage{Input: 200, CacheRead: 6000, Output: 41, Reasoning: 12}, "input 200, the script's 6200"},
		{"two", Usage{Input: 6200, CacheRead: 6000, CacheWrite1h: 5, Output: 29}, "cache_write_1h 5, the script's 0; output 29, the script's 41; reasoning 0, the script's 12"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokenDrift(tt.got, script); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
