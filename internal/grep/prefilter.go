package grep

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// A prefilter says which raw lines may hold a match, from a literal every
// match contains. In the raw line a decoded text's character is either
// itself or an escape. Most characters are escaped only as \uXXXX; the
// others (", \, / and the controls, whose short escapes \" \\ \/ \n ...
// are common) break the literal into segments, and the longest segment
// is what is looked for. So a line holds a match only if it holds the
// segment as it is, or has a \u escape somewhere (which may hide a
// character of it): the other lines are passed over undecoded.
type prefilter struct {
	seg  []byte // the segment, raw; nil: every line is a candidate
	fold bool   // ASCII letters of seg match either case

	// With fold: the byte of seg searched for first (the rarest), in
	// both cases, and its place in seg.
	lo, up byte
	at     int
	// With fold: the UTF-8 of the non-ASCII runes that fold to a letter
	// of seg (K and k fold with the Kelvin sign, S and s with the long s):
	// a line that has one is decoded.
	others [][]byte
}

func newPrefilter(lit []rune, fold bool) prefilter {
	var best, cur []rune
	for _, r := range lit {
		if safe(r, fold) {
			cur = append(cur, r)
			if len(cur) > len(best) {
				best = cur
			}
			continue
		}
		cur = nil
	}
	if len(best) == 0 {
		return prefilter{}
	}
	p := prefilter{seg: []byte(string(best)), fold: fold}
	if !fold {
		return p
	}
	// the rarest byte, so that few false starts are checked
	for i, c := range p.seg {
		if rank(c) < rank(p.seg[p.at]) {
			p.at = i
		}
		_ = c
	}
	c := p.seg[p.at]
	p.lo, p.up = lower(c), upper(c)
	seen := map[rune]bool{}
	for _, r := range best {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf && !seen[f] {
				seen[f] = true
				p.others = append(p.others, []byte(string(f)))
			}
		}
	}
	return p
}

// safe reports whether r stands for itself in a raw JSON string, but for
// a \u escape: printable, no quote, backslash or slash (which has a short
// escape), not U+FFFD (which invalid UTF-8 decodes to). Folded, only
// ASCII is safe: another rune's case is other bytes.
func safe(r rune, fold bool) bool {
	switch {
	case r < 0x20 || r == '"' || r == '\\' || r == '/' || r == 0x7f:
		return false
	case r >= utf8.RuneSelf:
		return !fold && r != utf8.RuneError && !unicode.IsControl(r)
	}
	return true
}

// candidate reports whether line may hold a match.
func (p *prefilter) candidate(line []byte) bool {
	if p.seg == nil {
		return true
	}
	if p.find(line) {
		return true
	}
	if bytes.Contains(line, []byte(`\u`)) {
		return true
	}
	for _, o := range p.others {
		if bytes.Contains(line, o) {
			return true
		}
	}
	return false
}

// find reports whether line holds the segment (ASCII case folded with
// fold).
func (p *prefilter) find(line []byte) bool {
	if !p.fold {
		return bytes.Index(line, p.seg) >= 0
	}
	n := len(p.seg)
	if p.lo == p.up {
		for from := p.at; from < len(line); {
			i := bytes.IndexByte(line[from:], p.lo)
			if i < 0 {
				return false
			}
			i += from
			if s := i - p.at; s+n <= len(line) && asciiFoldEqual(line[s:s+n], p.seg) {
				return true
			}
			from = i + 1
		}
		return false
	}
	// Two searches, one per case, taken in turn: the nearer one is
	// checked, and searched again from past it.
	from := p.at
	iLo, iUp := -2, -2
	for from < len(line) {
		if iLo < from && iLo != -1 {
			iLo = index(line, from, p.lo)
		}
		if iUp < from && iUp != -1 {
			iUp = index(line, from, p.up)
		}
		i := iLo
		if i < 0 || iUp >= 0 && iUp < i {
			i = iUp
		}
		if i < 0 {
			return false
		}
		if s := i - p.at; s+n <= len(line) && asciiFoldEqual(line[s:s+n], p.seg) {
			return true
		}
		from = i + 1
	}
	return false
}

// index is the first c in line from from on, or -1.
func index(line []byte, from int, c byte) int {
	i := bytes.IndexByte(line[from:], c)
	if i < 0 {
		return -1
	}
	return i + from
}

func asciiFoldEqual(a, b []byte) bool {
	for i := range a {
		if a[i] != b[i] && lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// rank is how common a byte is in agents' logs, roughly: lower is rarer.
// English letter frequencies, and JSON's own bytes (digits, space, ':',
// ',') as the commonest.
func rank(c byte) int {
	const letters = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	if i := bytes.IndexByte([]byte(letters), lower(c)); i >= 0 {
		return 10 + i
	}
	switch {
	case '0' <= c && c <= '9', c == ' ', c == ':', c == ',', c == '_', c == '-', c == '.':
		return 50
	}
	return 5 // other punctuation: rare in text
}
