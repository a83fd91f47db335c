// Package redact takes secrets out of JSON Lines: API keys, tokens,
// passwords, private keys and credentials inside string values are
// replaced by [REDACTED:RULE], and every other byte of the line stays as
// it was. It is what --redact does in every tool that writes events
// (docs/redaction.md has the rules, with what each matches and cannot).
//
// A string value is decoded before it is scanned, so a secret written
// with escapes (\u0041KIA..., \/) is found; only a string that changes is
// written anew, with jsontext.AppendString's quoting. Keys, numbers and
// the structure of the line are never touched.
//
// The built-in rules are Go code, not regular expressions: each starts at
// a literal (sk-, AKIA, ghp_, -----BEGIN, a '=' or ':' after a NAME), so
// that most bytes of a line cost one table look-up. Rules added from a
// file (Load) are regular expressions, run on every string value.
package redact

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// A Redactor finds and replaces secrets, and counts them by rule. It is
// not safe for concurrent use.
type Redactor struct {
	names  []string // of the built-in rules, then the added ones
	off    [numBuiltin]bool
	user   []userRule
	counts []int

	found []finding
	noEnd int    // in the text being scanned, where no PEM END line follows (privateKey)
	buf   []byte // a decoded string
	key   []byte // a decoded key
	tmp   []byte // a string with its secrets replaced
}

type finding struct{ start, end, rule int }

// minSecret is the shortest string a built-in rule finds anything in
// (N=value with a value of 6).
const minSecret = 8

// New returns a Redactor with the built-in rules.
func New() *Redactor {
	r := &Redactor{counts: make([]int, numBuiltin)}
	for _, b := range Builtins {
		r.names = append(r.names, b.Name)
	}
	return r
}

// trigger marks the bytes at which a built-in rule may start: isPunct
// for '=', ':' and '-', else a letter that starts a token, with the
// letters that may follow it in pairs.
var (
	trigger = func() (t class) {
		for _, b := range []byte("srAGgxnhe:=-") {
			t[b] = true
		}
		return t
	}()
	isPunct = class{'=': true, ':': true, '-': true}
	pairs   = func() (p [256]class) {
		for _, pair := range []string{"sk", "rk", "AI", "AK", "AS", "AB", "AC", "A3", "GO", "GR",
			"gh", "gi", "gl", "gs", "xo", "xa", "np", "hf", "ho", "ey"} {
			p[pair[0]][pair[1]] = true
		}
		return p
	}()
)

// find appends the secrets in the text s to fs, in order, without overlaps.
func (r *Redactor) find(s []byte, fs []finding) []finding {
	n0 := len(fs)
	r.noEnd = -1
	for i := 0; i < len(s); {
		c := s[i]
		if !trigger[c] {
			i++
			continue
		}
		// A token starts a word (see at) with one of a few pairs: most
		// letters are inside a word, or not followed so.
		if !isPunct[c] && (i > 0 && alnum[s[i-1]] && (i < 2 || s[i-2] != '\\') || i+1 == len(s) || !pairs[c][s[i+1]]) {
			i++
			continue
		}
		rule, start, end, ok := r.at(s, i)
		if !ok || end <= i {
			i++
			continue
		}
		fs = append(fs, finding{start, end, rule})
		i = end
	}
	if len(r.user) == 0 {
		return fs
	}
	for k, u := range r.user {
		for _, m := range u.re.FindAllSubmatchIndex(s, -1) {
			if start, end := m[2*u.group], m[2*u.group+1]; start >= 0 && end > start {
				fs = append(fs, finding{start, end, int(numBuiltin) + k})
			}
		}
	}
	// In order of start, the longer first; a secret inside one found
	// already is part of it.
	mine := fs[n0:]
	slices.SortStableFunc(mine, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	out := mine[:0]
	for _, f := range mine {
		if len(out) > 0 && f.start < out[len(out)-1].end {
			continue
		}
		out = append(out, f)
	}
	return fs[:n0+len(out)]
}

// at reports the secret of a built-in rule that starts at s[i].
func (r *Redactor) at(s []byte, i int) (rule, start, end int, ok bool) {
	if rule, start, end, ok = r.context(s, i); ok {
		// A value that is a known token is counted as that token.
		if tr, te, tok := r.tokenAt(s, start); tok && te <= end {
			return tr, start, te, true
		}
		return rule, start, end, true
	}
	// A token starts a word; \n, \t and the like before it are escapes
	// left in a string that held JSON.
	if i > 0 && alnum[s[i-1]] && (i < 2 || s[i-2] != '\\') {
		return 0, 0, 0, false
	}
	if rule, end, ok := r.tokenAt(s, i); ok {
		return rule, i, end, true
	}
	return 0, 0, 0, false
}

// context reports a secret found by what comes before it: a NAME, a URL's
// scheme, a PEM header, a webhook's host.
func (r *Redactor) context(s []byte, i int) (rule, start, end int, ok bool) {
	switch s[i] {
	case ':':
		if start, end := urlCredentials(s, i); end > start && !r.off[ruleURLCredentials] {
			return ruleURLCredentials, start, end, true
		}
		return r.assignment(s, i)
	case '=':
		return r.assignment(s, i)
	case '-':
		if hasPrefixAt(s, i, "-----BEGIN ") {
			if e := privateKey(s, i, &r.noEnd); e >= 0 && !r.off[rulePrivateKey] {
				return rulePrivateKey, i, e, true
			}
			return 0, 0, 0, false
		}
		if i+1 < len(s) && s[i+1] == '-' {
			return r.option(s, i)
		}
		return 0, 0, 0, false
	case 'h':
		if start, end := slackWebhook(s, i); end > start && !r.off[ruleSlackWebhook] {
			return ruleSlackWebhook, start, end, true
		}
	}
	return 0, 0, 0, false
}

// Line redacts one JSON text (a line of JSON Lines): the secrets in its
// string values are replaced, and the line with them replaced is appended
// to dst. When there is none, Line returns dst as it was and false, and
// the line stands as it is.
func (r *Redactor) Line(dst, line []byte) (out []byte, changed bool) {
	copied := 0
	i := 0
	keyStart, keyEnd, afterKey := 0, 0, -1
	for {
		q := i
		for q < len(line) && line[q] != '"' {
			q++
		}
		if q == len(line) {
			break
		}
		past, escaped := jsonscan.StringEnd(line, q+1)
		if past < 0 {
			break // not JSON: the rest stays as it is
		}
		end := past - 1 // the closing quote
		j := end + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r' || line[j] == '\n') {
			j++
		}
		if j < len(line) && line[j] == ':' {
			keyStart, keyEnd, afterKey = q+1, end, j+1
			i = j + 1
			continue
		}
		var key []byte
		if afterKey >= 0 && blank(line[afterKey:q]) {
			key = line[keyStart:keyEnd]
			if bytes.IndexByte(key, '\\') >= 0 {
				r.key, _ = jsonscan.Unquote(r.key[:0], line[keyStart-1:keyEnd+1])
				key = r.key
			}
		}
		afterKey = -1
		i = end + 1
		text := line[q+1 : end]
		if escaped {
			var ok bool
			if r.buf, ok = jsonscan.Unquote(r.buf[:0], line[q:end+1]); !ok {
				continue
			}
			text = r.buf
		}
		if len(text) < minSecret && len(r.user) == 0 {
			continue
		}
		fs := r.find(text, r.found[:0])
		if len(fs) == 0 && key != nil {
			if rule, s, e, ok := r.member(key, text); ok {
				fs = append(fs, finding{s, e, rule})
			}
		}
		r.found = fs
		if len(fs) == 0 {
			continue
		}
		dst = append(dst, line[copied:q]...)
		dst = r.replace(dst, text, fs)
		copied = end + 1
		changed = true
	}
	if cap(r.buf) > 1<<20 {
		r.buf = nil // a huge string was decoded: do not keep its buffer
	}
	if !changed {
		return dst, false
	}
	return append(dst, line[copied:]...), true
}

// replace appends text as a JSON string with the findings replaced, and
// counts them.
func (r *Redactor) replace(dst, text []byte, fs []finding) []byte {
	r.tmp = r.replaced(r.tmp[:0], text, fs)
	dst = jsontext.AppendString(dst, r.tmp)
	if cap(r.tmp) > 1<<20 {
		r.tmp = nil
	}
	return dst
}

// replaced appends text with the findings replaced, and counts them.
func (r *Redactor) replaced(dst, text []byte, fs []finding) []byte {
	prev := 0
	for _, f := range fs {
		dst = append(dst, text[prev:f.start]...)
		dst = append(dst, "[REDACTED:"...)
		dst = append(dst, r.names[f.rule]...)
		dst = append(dst, ']')
		prev = f.end
		r.counts[f.rule]++
	}
	return append(dst, text[prev:]...)
}

// Text appends text, plain text rather than JSON, to dst with its secrets
// replaced, and counts them: for text a reader joined from pieces that
// were redacted one by one (the pretty view's text deltas), where a
// secret split between two pieces is whole again.
func (r *Redactor) Text(dst, text []byte) []byte {
	fs := r.find(text, r.found[:0])
	r.found = fs
	return r.replaced(dst, text, fs)
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Count is how many secrets one rule found.
type Count struct {
	Rule string
	N    int
}

// Counts are the secrets replaced so far, by rule: the most first, then
// by name; rules that found none are left out.
func (r *Redactor) Counts() []Count {
	var cs []Count
	for i, n := range r.counts {
		if n > 0 {
			cs = append(cs, Count{r.names[i], n})
		}
	}
	slices.SortFunc(cs, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Rule, b.Rule))
	})
	return cs
}

// Report writes the counts to w as one line, "TOOL: redacted 2
// github-token, 1 jwt", or nothing when nothing was redacted.
func (r *Redactor) Report(tool string, w io.Writer) {
	cs := r.Counts()
	if len(cs) == 0 {
		return
	}
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", c.N, c.Rule)
	}
	fmt.Fprintf(w, "%s: redacted %s\n", tool, b.String())
}
