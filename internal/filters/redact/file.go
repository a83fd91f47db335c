package redact

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/evtools/evtools/pkg/jsonl"
)

// userRule is a rule added from a file: a regular expression whose match,
// or its group named "secret", is replaced.
type userRule struct {
	re    *regexp.Regexp
	group int // 0: the whole match
}

// LoadFile adds the rules of the file called name (see Load).
func (r *Redactor) LoadFile(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return jsonl.FileError(name, err)
	}
	return r.Load(name, data)
}

// Load adds the rules in data, read from the file called name (for the
// messages). A rules file has one rule a line:
//
//	NAME<TAB>REGEXP    a rule: Go's regular expression syntax (RE2); the
//	                   match is replaced, or only its group named secret
//	                   when it has one: (?P<secret>...)
//	-NAME              turns the built-in rule NAME off
//	# a comment        and blank lines are skipped
//
// NAME is letters, digits, '_', '.' and '-' (a letter or digit first), and
// new; spaces may stand for
// the TAB. A regular expression that matches the empty string is refused.
func (r *Redactor) Load(name string, data []byte) error {
	for n, line := range bytes.Split(data, []byte("\n")) {
		l := strings.TrimRight(string(line), " \t\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(format, args...))
		}
		if off, ok := strings.CutPrefix(l, "-"); ok {
			i := r.builtin(off)
			if i < 0 {
				return bad("-%s: no built-in rule is called %s (the rules are in docs/redaction.md)", off, off)
			}
			r.off[i] = true
			continue
		}
		ruleName, expr, ok := strings.Cut(strings.Replace(l, "\t", " ", 1), " ")
		expr = strings.TrimLeft(expr, " \t")
		if !ok || expr == "" {
			return bad("want NAME, a TAB and a regular expression")
		}
		if !validName(ruleName) {
			return bad("%q: a rule's name is letters, digits, _ . and -", ruleName)
		}
		if r.builtin(ruleName) >= 0 {
			return bad("%s is a built-in rule (to turn it off: -%s)", ruleName, ruleName)
		}
		for _, have := range r.names[numBuiltin:] {
			if have == ruleName {
				return bad("rule %s is given twice", ruleName)
			}
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return bad("%s: %v", ruleName, err)
		}
		if re.MatchString("") {
			return bad("%s: the regular expression matches the empty string", ruleName)
		}
		u := userRule{re: re}
		if g := re.SubexpIndex("secret"); g > 0 {
			u.group = g
		}
		r.user = append(r.user, u)
		r.names = append(r.names, ruleName)
		r.counts = append(r.counts, 0)
	}
	return nil
}

// builtin returns the number of the built-in rule called name, or -1.
func (r *Redactor) builtin(name string) int {
	for i, b := range Builtins {
		if b.Name == name {
			return i
		}
	}
	return -1
}

func validName(s string) bool {
	if s == "" || !alnum[s[0]] {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameChars[s[i]] {
			return false
		}
	}
	return true
}
