// Package grep is evfilter's --grep: a text search over what was said in
// an event stream (the prompts, replies, thinking, tool arguments and
// outputs, error messages), never over its keys, ids or numbers.
//
// A Matcher first looks for a literal the pattern cannot match without
// (the pattern itself, or the longest literal a regular expression
// requires) in the raw bytes of the line, and decodes only the lines that
// have it: most lines of an archive are passed over at the speed of
// bytes.Index. A line that has it, or that may hide it behind a \u escape,
// is read with pkg/event and its texts (Texts) searched, decoded.
package grep

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Options say how to read the pattern.
type Options struct {
	Fixed      bool // the pattern is a literal string, not a regular expression
	IgnoreCase bool // letters match whatever their case (Unicode simple folding)
}

// Matcher searches the texts of events for a pattern. It is not safe for
// concurrent use: Clone gives each goroutine its own.
type Matcher struct {
	pattern string
	opts    Options

	re    *regexp.Regexp // nil when the pattern is a literal
	lit   []byte         // the literal, when re is nil
	folds []rune         // the literal folded (canon), when folding
	fold  bool

	pre   prefilter
	rawOK bool // a literal that is its own segment: searchRaw

	ev  event.Event
	buf []byte
	hit bool // what the walk found (see Match)

	// The block TestIn's lines are in (see Block), and where the next
	// occurrence of the segment, hiding escape and other rune are in it
	// at or after the last line's start; -1: not looked for yet.
	blk                []byte
	nextSeg, nextEsc   int
	nextOther, blkFrom int
}

// Compile compiles pattern: a regular expression in Go's syntax (RE2),
// or a literal with Fixed. ^ and $ match at the lines of a text, as grep
// reads a file by lines.
func Compile(pattern string, o Options) (*Matcher, error) {
	if pattern == "" {
		return nil, fmt.Errorf("--grep: an empty pattern matches every text")
	}
	m := &Matcher{pattern: pattern, opts: o, fold: o.IgnoreCase}
	var lit []rune
	litFold := o.IgnoreCase
	if o.Fixed {
		lit = []rune(pattern)
		if !utf8.ValidString(pattern) {
			return nil, fmt.Errorf("--grep: the pattern is not valid UTF-8")
		}
		m.lit = []byte(pattern)
	} else {
		flags := syntax.Perl
		if o.IgnoreCase {
			flags |= syntax.FoldCase
		}
		re, err := syntax.Parse(pattern, flags)
		if err != nil {
			return nil, fmt.Errorf("--grep: %v", err)
		}
		re = re.Simplify()
		if re.Op == syntax.OpLiteral && (re.Flags&syntax.FoldCase != 0) == o.IgnoreCase {
			// A plain word: the literal path, no regexp at all.
			m.lit = []byte(string(re.Rune))
			lit = re.Rune
		} else {
			src := "(?m)" + pattern
			if o.IgnoreCase {
				src = "(?mi)" + pattern
			}
			if m.re, err = regexp.Compile(src); err != nil {
				return nil, fmt.Errorf("--grep: %v", err)
			}
			lit, litFold = required(re)
		}
	}
	if m.re == nil && m.fold {
		m.folds = make([]rune, len(lit))
		for i, r := range lit {
			m.folds[i] = canon(r)
		}
	}
	m.pre = newPrefilter(lit, litFold)
	m.rawOK = m.re == nil && len(m.pre.seg) == len(m.lit)
	return m, nil
}

// Clone returns a matcher of the same pattern with buffers of its own.
func (m *Matcher) Clone() *Matcher {
	c := &Matcher{pattern: m.pattern, opts: m.opts, re: m.re, lit: m.lit, folds: m.folds, fold: m.fold, pre: m.pre, rawOK: m.rawOK}
	return c
}

// String is the pattern, as given.
func (m *Matcher) String() string { return m.pattern }

// Match reports whether one of the searched texts of the event line holds
// a match. A line that is not an event holds none.
func (m *Matcher) Match(line []byte) bool {
	if !m.pre.candidate(line) {
		return false
	}
	ok, _ := m.read(line)
	return ok
}

// Test is Match that validates line too, as jsonscan.Check does: err is
// Check's error, and a line that is not valid matches nothing. A line
// the prefilter passes is validated by the read of its event instead,
// one pass over it rather than two.
func (m *Matcher) Test(line []byte) (bool, error) {
	if !m.pre.candidate(line) {
		return false, jsonscan.Check(line)
	}
	return m.read(line)
}

// Block says that the next lines given to TestIn lie in data, in order:
// the prefilter then searches data, not each line, so that a search
// runs on until the next occurrence whatever the lines in between.
func (m *Matcher) Block(data []byte) {
	m.blk = data
	m.nextSeg, m.nextEsc, m.nextOther, m.blkFrom = -1, -1, -1, 0
}

// TestIn is Test on a line of the block Block was last given, each line
// after the one before.
func (m *Matcher) TestIn(line []byte) (bool, error) {
	from := jsonscan.OffsetOf(m.blk, line)
	if m.pre.seg == nil || from < m.blkFrom {
		return m.Test(line)
	}
	m.blkFrom = from
	to := from + len(line)
	if next(&m.nextSeg, m.blk, from, m.pre.index) < to ||
		next(&m.nextEsc, m.blk, from, m.pre.escape) < to ||
		len(m.pre.others) > 0 && next(&m.nextOther, m.blk, from, m.pre.other) < to {
		return m.read(line)
	}
	return false, jsonscan.Check(line)
}

// next is *at, searched again with find from from when it is before
// from: the first occurrence in data at or after from, len(data) when
// there is none.
func next(at *int, data []byte, from int, find func([]byte) int) int {
	if *at < from {
		if i := find(data[from:]); i >= 0 {
			*at = from + i
		} else {
			*at = len(data)
		}
	}
	return *at
}

// read validates line by reading its event and searches its texts.
func (m *Matcher) read(line []byte) (bool, error) {
	switch err := m.ev.Read(line); {
	case err == event.ErrNotEvent:
		return false, nil // an object, valid: no event, no texts
	case err != nil:
		return false, err
	}
	if m.rawOK {
		return m.searchRaw(), nil
	}
	return m.search(), nil
}

// searchRaw is search on the texts as the line writes them, for a
// literal that is its own segment: an occurrence in a text's raw bytes
// that does not start inside an escape is one in the text, decoded, and
// the text needs no decoding (the costly part of a line that has the
// word). A text with an escape that may hide one of the literal's
// characters is decoded and searched.
func (m *Matcher) searchRaw() bool {
	m.hit = false
	eachText(&m.ev, &m.buf, true, func(_ Source, raw []byte) bool {
		body := raw[1 : len(raw)-1]
		if m.pre.escape(body) >= 0 || m.pre.other(body) >= 0 {
			if text, ok := event.String(raw, &m.buf); ok && m.Find(text) != nil {
				m.hit = true
			}
			return !m.hit
		}
		for from := 0; ; {
			i := m.pre.index(body[from:])
			if i < 0 {
				return true
			}
			if i += from; !inEscape(body, i) {
				m.hit = true
				return false
			}
			from = i + 1
		}
	})
	return m.hit
}

// inEscape reports whether body[i] is part of an escape (its letter, or
// a \u's digits) rather than a character of its own.
func inEscape(body []byte, i int) bool {
	for k := 1; k <= 5 && k <= i; k++ {
		b := i - k
		if body[b] != '\\' {
			continue
		}
		run := b // the backslashes before body[b]
		for run > 0 && body[run-1] == '\\' {
			run--
		}
		if (b-run)%2 == 1 {
			continue // body[b] is an escaped backslash
		}
		// body[b] starts an escape: \x, or \uXXXX
		return k == 1 || body[b+1] == 'u'
	}
	return false
}

// decoded searches the texts of line, decoded, with no prefilter: what
// Match must agree with (FuzzMatch).
func (m *Matcher) decoded(line []byte) bool {
	if m.ev.Read(line) != nil {
		return false
	}
	return m.search()
}

// search searches the texts of the event just read.
func (m *Matcher) search() bool {
	m.hit = false
	eachText(&m.ev, &m.buf, false, func(_ Source, text []byte) bool {
		if m.Find(text) != nil {
			m.hit = true
			return false
		}
		return true
	})
	return m.hit
}

// Find returns the first match in text as its start and end, or nil.
func (m *Matcher) Find(text []byte) []int {
	switch {
	case m.re != nil:
		return m.re.FindIndex(text)
	case m.fold:
		return foldIndex(text, m.folds)
	}
	if i := bytes.Index(text, m.lit); i >= 0 {
		return []int{i, i + len(m.lit)}
	}
	return nil
}

// required returns a literal every match of re contains, the longest it
// finds, and whether it is to be matched folded; nil when it finds none.
func required(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		fold := false
		for _, s := range re.Sub {
			if r, f := required(s); len(r) > len(best) {
				best, fold = r, f
			}
		}
		return best, fold
	}
	return nil, false
}

// canon is r's representative under simple case folding: the smallest
// rune of its orbit (unicode.SimpleFold), so that two runes match folded
// exactly when their canons are equal, as regexp's (?i) matches them.
func canon(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	low := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		low = min(low, f)
	}
	return low
}

// foldIndex finds needle (runes in canon form) in text, folded; the match
// as start and end, or nil.
func foldIndex(text []byte, needle []rune) []int {
	if len(needle) == 0 {
		return []int{0, 0}
	}
	first := needle[0]
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(text[i:])
		}
		if canon(r) == first {
			if end, ok := foldPrefix(text[i+n:], needle[1:]); ok {
				return []int{i, i + n + end}
			}
		}
		i += n
	}
	return nil
}

// foldPrefix reports whether text starts with needle, folded, and where
// that prefix ends.
func foldPrefix(text []byte, needle []rune) (int, bool) {
	j := 0
	for _, want := range needle {
		if j >= len(text) {
			return 0, false
		}
		r, n := rune(text[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(text[j:])
		}
		if canon(r) != want {
			return 0, false
		}
		j += n
	}
	return j, true
}
