package cli

import (
	"strings"
	"testing"
)

// A tool's Words are the values its man page lists and its scripts
// offer, and its Vars fill its help.
func TestToolWords(t *testing.T) {
	type opts struct {
		Format string `help:"One of ${formats}."`
		Keys   string `help:"Keys."`
	}
	tool := Tool{Name: "t",
		Vars: func() map[string]string { return map[string]string{"formats": "a, b"} },
		Words: func() map[string]Words {
			return map[string]Words{"format": {Words: []string{"a", "b"}}, "keys": {List: true, Words: []string{"k1", "k2"}}}
		}}
	run := func(args ...string) string {
		var out strings.Builder
		Parse(tool, args, Stdio{Out: &out, Err: &out}, &opts{})
		return out.String()
	}
	for args, wants := range map[string][]string{
		"--help":            {"One of a, b."},
		"--man":             {"One of a, b.", `Keys. Comma\-separated words of: k1, k2.`},
		"--completion=bash": {`_evtools_words "a b"`, `_evtools_list "k1 k2"`},
	} {
		got := run(args)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", args, want, got)
			}
		}
	}
}
