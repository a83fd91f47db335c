package grep

import (
	"bytes"
	"slices"
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

	// The byte of seg searched for first (the rarest) and its place in
	// seg; with fold, in both cases.
	lo, up byte
	at     int
	// With fold: the UTF-8 of the non-ASCII runes that fold to a letter
	// of seg (K and k fold with the Kelvin sign, S and s with the long s):
	// a line that has one is decoded.
	others [][]byte

	// The runes a \u escape may write that are, or fold to, a rune of
	// seg; astral: one of them is beyond the BMP (a surrogate pair).
	runes  []rune
	astral bool
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
	for _, r := range best {
		p.runes = append(p.runes, r)
		for f := unicode.SimpleFold(r); fold && f != r; f = unicode.SimpleFold(f) {
			p.runes = append(p.runes, f)
		}
	}
	for _, r := range p.runes {
		p.astral = p.astral || r > 0xffff
	}
	// the rarest byte, so that few false starts are checked
	for i, c := range p.seg {
		if rank(c) < rank(p.seg[p.at]) {
			p.at = i
		}
	}
	if !fold {
		return p
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
	return p.index(line) >= 0 || p.escape(line) >= 0 || p.other(line) >= 0
}

// escape is where the first \u escape of b is that may stand for a
// character of the segment (in any case, with fold), or -1. Other
// escapes, such as the \u001b of a terminal's colours, hide none of its
// characters: a line full of them is passed over as one without.
//
// It looks for the u, not the backslash: agents' logs are full of \n and
// \", a backslash every 25 bytes or so, a u every 60.
func (p *prefilter) escape(b []byte) int {
	for i := 1; i < len(b); {
		j := bytes.IndexByte(b[i:], 'u')
		if j < 0 {
			return -1
		}
		j += i
		if b[j-1] == '\\' && p.hides(b[j+1:]) {
			return j - 1
		}
		i = j + 1
	}
	return -1
}

// hides reports whether the 4 hex digits hex starts with may be a
// character of the segment: one of runes, or half of a surrogate pair
// when the segment has a rune beyond the BMP. Anything else (too few
// digits, not hex) is taken as hiding one, to be safe.
func (p *prefilter) hides(hex []byte) bool {
	if len(hex) < 4 {
		return true
	}
	r := rune(0)
	for _, c := range hex[:4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return true
		}
		r = r<<4 | rune(d)
	}
	if 0xd800 <= r && r < 0xe000 {
		return p.astral
	}
	return slices.Contains(p.runes, r)
}

// other is where the first of others is in b, or -1.
func (p *prefilter) other(b []byte) int {
	at := -1
	for _, o := range p.others {
		if i := bytes.Index(b, o); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// index is where the first occurrence of the segment starts in b (ASCII
// case folded with fold), or -1.
func (p *prefilter) index(line []byte) int {
	n := len(p.seg)
	if !p.fold {
		if n == 1 {
			return bytes.IndexByte(line, p.seg[0])
		}
		// bytes.Index looks for the segment's first byte, often a
		// common one: the rarest is looked for instead, as folded. Too
		// many false starts, and bytes.Index takes over.
		fails := 0
		for from := p.at; from < len(line); {
			i := bytes.IndexByte(line[from:], p.seg[p.at])
			if i < 0 {
				return -1
			}
			i += from
			if s := i - p.at; s+n <= len(line) && bytes.Equal(line[s:s+n], p.seg) {
				return s
			}
			if fails++; fails > 16+i/32 {
				if j := bytes.Index(line[i-p.at+1:], p.seg); j >= 0 {
					return j + i - p.at + 1
				}
				return -1
			}
			from = i + 1
		}
		return -1
	}
	if p.lo == p.up {
		for from := p.at; from < len(line); {
			i := bytes.IndexByte(line[from:], p.lo)
			if i < 0 {
				return -1
			}
			i += from
			if s := i - p.at; s+n <= len(line) && asciiFoldEqual(line[s:s+n], p.seg) {
				return s
			}
			from = i + 1
		}
		return -1
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
			return -1
		}
		if s := i - p.at; s+n <= len(line) && asciiFoldEqual(line[s:s+n], p.seg) {
			return s
		}
		from = i + 1
	}
	return -1
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
