package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestUnquote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`""`, "", true},
		{`"plain"`, "plain", true},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", true},
		{`"\u0041\u00e9\u4e16"`, "Aé世", true},
		{`"\u00E9"`, "é", true},
		{`"\uD83D\uDE00"`, "😀", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\uD83D"`, "\uFFFD", true},                     // lone high surrogate
		{`"\uDE00"`, "\uFFFD", true},                     // lone low surrogate
		{`"\uDE00\uD83D"`, "\uFFFD\uFFFD", true},         // reversed pair
		{`"\uD83D\u0041"`, "\uFFFDA", true},              // high surrogate then a normal escape
		{`"\uD83Dx"`, "\uFFFDx", true},                   // high surrogate then a plain byte
		{`"\uD83D\uD83D\uDE00"`, "\uFFFD😀", true},        // the second high pairs with the low
		{`"\u0000"`, "\x00", true},                       // escaped NUL is fine
		{"\"\xff\"", "\uFFFD", true},                     // invalid UTF-8 is replaced
		{"\"a\xc3\"", "a\uFFFD", true},                   // truncated sequence
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD", true}, // UTF-8-encoded surrogate
		{"\"\xef\xbf\xbd\"", "\uFFFD", true},
		{"\"é\u2028\"", "é\u2028", true},
		{`"\'"`, "", false},
		{`"\x41"`, "", false},
		{`"\u00G1"`, "", false},
		{`"\u00"`, "", false},
		{`"\uD83D\u00"`, "", false},
		{`"abc\"`, "", false},
		{`"a"b"`, "", false},
		{"\"a\tb\"", "", false},
		{"\"\x00\"", "", false},
		{`"`, "", false},
		{``, "", false},
		{`abc`, "", false},
		{` "a"`, "", false},
		{`"a" `, "", false},
		{`null`, "", false},
	} {
		dst := []byte("pre:")
		got, ok := Unquote(dst, []byte(tc.in))
		if ok != tc.ok {
			t.Errorf("Unquote(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		want := "pre:" + tc.want
		if string(got) != want {
			t.Errorf("Unquote(%q) = %q, want %q", tc.in, got, want)
		}
		// The table itself agrees with encoding/json.
		var ref string
		err := json.Unmarshal([]byte(tc.in), &ref)
		if refOK := err == nil && len(tc.in) > 1 && tc.in[0] == '"' && tc.in[len(tc.in)-1] == '"'; refOK != tc.ok || (tc.ok && ref != tc.want) {
			t.Errorf("test is wrong: encoding/json decodes %q to %q, %v", tc.in, ref, err)
		}
		if eq := StringEquals([]byte(tc.in), tc.want); eq != tc.ok {
			t.Errorf("StringEquals(%q, %q) = %v, want %v", tc.in, tc.want, eq, tc.ok)
		}
	}
}

func TestStringEquals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		s    string
		want bool
	}{
		{`"tool_call"`, "tool_call", true},
		{`"tool_call"`, "tool_cal", false},
		{`"tool_call"`, "tool_calls", false},
		{`"tool\u005fcall"`, "tool_call", true},
		{`"tool\u005Fcall"`, "tool_calx", false},
		{`"a\"b"`, `a"b`, true},
		{`"a\"b"`, `a\"b`, false},
		{`"\uD83D\uDE00"`, "😀", true},
		{`"\uD83D"`, "\uFFFD", true},
		{"\"\xff\"", "\xff", false}, // decodes to U+FFFD, not the raw byte
		{"\"\xff\"", "\uFFFD", true},
		{`""`, "", true},
		{`""`, "x", false},
		{`"x"`, "", false},
		{`tool_call`, "tool_call", false},
		{`"tool_call`, "tool_call", false},
		{"\"a\nb\"", "a\nb", false}, // raw newline is not a valid string
	} {
		if got := StringEquals([]byte(tc.in), tc.s); got != tc.want {
			t.Errorf("StringEquals(%q, %q) = %v, want %v", tc.in, tc.s, got, tc.want)
		}
	}
}

func TestKeyIs(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		name string
		want bool
	}{
		{`kind`, "kind", true},
		{`kind`, "kinds", false},
		{`kind`, "kin", false},
		{`kind`, "Kind", false},
		{`k\u0069nd`, "kind", true},
		{`k\u0069nd`, `k\u0069nd`, false},
		{`\u006b\u0069\u006e\u0064`, "kind", true},
		{`a\\b`, `a\b`, true},
		{`a\\b`, `a\\b`, false},
		{`a\/b`, "a/b", true},
		{`\uD83D\uDE00`, "😀", true},
		{`é`, "é", true},
		{"\xff", "\xff", false},
		{"\xff", "\uFFFD", true},
		{"\xffx", "\uFFFDx", true},
		{``, "", true},
		{``, "a", false},
		{`a"b`, `a"b`, false}, // not a key Members can give: an unescaped quote
		{"a\tb", "a\tb", false},
		{`a\`, `a\`, false},
	} {
		if got := KeyIs([]byte(tc.raw), tc.name); got != tc.want {
			t.Errorf("KeyIs(%q, %q) = %v, want %v", tc.raw, tc.name, got, tc.want)
		}
	}
}
