// Package corpus generates realistic, deterministic corpora of agent event
// streams for benchmarks and cross-checks: zot RPC streams and envelope logs
// in the multi-agent run-log vocabulary (both described in docs/formats.md).
//
// The same seed always gives the same bytes, on every platform and Go
// version: the generator uses its own PRNG and its own JSON writer, so that a
// benchmark corpus can be regenerated instead of stored.
package corpus

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// flushAt is the buffered size at which a generator hands its bytes to the
// writer: large enough that the writer sees few calls, small enough to stay
// in cache.
const flushAt = 256 << 10

// rng is splitmix64: tiny, fast and fixed forever, unlike math/rand whose
// streams may change between Go versions.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n); n must be positive and below 2^32.
func (r *rng) intn(n int) int {
	return int(((r.next() >> 32) * uint64(n)) >> 32)
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// oneIn is true once in n calls on average.
func (r *rng) oneIn(n int) bool { return r.intn(n) == 0 }

// percent is true p times in a hundred on average.
func (r *rng) percent(p int) bool { return r.intn(100) < p }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// out accumulates whole lines and writes them in large blocks.
type out struct {
	w       io.Writer
	b       []byte
	written int64
	err     error
}

// clock is a generator's random source and its clock in Unix
// milliseconds, which moves on by a random step at each event.
type clock struct {
	r  rng
	ms int64
}

// tick moves the clock on by lo to hi milliseconds and returns it.
func (c *clock) tick(lo, hi int) int64 {
	c.ms += int64(c.r.between(lo, hi))
	return c.ms
}

// gen is what every stream generator has: its output and its clock,
// which starts within an hour after its epoch.
type gen struct {
	out
	clock
}

func newGen(w io.Writer, seed uint64, epoch int64) gen {
	g := gen{out: newOut(w), clock: clock{r: rng{s: seed}}}
	g.ms = epoch + int64(g.r.intn(3600_000))
	return g
}

// newOut is an output buffer on w, with room for the longest line past
// flushAt, so that a line is never split across writes.
func newOut(w io.Writer) out { return out{w: w, b: make([]byte, 0, flushAt+64<<10)} }

// writeRuns calls run, which writes one whole run, until at least n bytes
// are written or a write fails, then writes out the rest.
func (o *out) writeRuns(n int64, run func()) error {
	for o.total() < n && o.err == nil {
		run()
	}
	o.flush()
	return o.err
}

// total is the number of bytes produced so far, buffered or written.
func (o *out) total() int64 { return o.written + int64(len(o.b)) }

// endLine is called after each complete line; it only writes once the
// buffer is large, so lines are never split across writes needlessly.
func (o *out) endLine() {
	o.b = append(o.b, '\n')
	if len(o.b) >= flushAt {
		o.flush()
	}
}

func (o *out) flush() {
	if o.err == nil && len(o.b) > 0 {
		var n int
		n, o.err = o.w.Write(o.b)
		o.written += int64(n)
	}
	o.b = o.b[:0]
}

func (o *out) raw(s string) { o.b = append(o.b, s...) }

// line writes s as a whole line.
func (o *out) line(s string) { o.raw(s); o.endLine() }

func (o *out) int(n int64) { o.b = strconv.AppendInt(o.b, n, 10) }

func (o *out) bool(v bool) { o.b = strconv.AppendBool(o.b, v) }

// key writes the member name of an object's member after its first:
// ,"name":
func (o *out) key(name string) {
	o.b = append(o.b, ',', '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

// word writes an object's first member, a word of the vocabulary (a
// decision, a reason to stop) that needs no escaping: "name":"v".
func (o *out) word(name, v string) {
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, `":"`...)
	o.b = append(o.b, v...)
	o.b = append(o.b, '"')
}

// strAt and intAt write a member after an object's first: ,"name":value.
func (o *out) strAt(name, s string)       { o.key(name); o.str(s) }
func (o *out) intAt(name string, n int64) { o.key(name); o.int(n) }

// str writes s as a JSON string the way evtools itself does
// (jsontext.AppendString). For the pools' text that is also what zot and
// the run-log producers write; only tool output, below, holds the
// characters whose spelling differs between writers.
func (o *out) str(s string) { o.b = jsontext.AppendString(o.b, s) }

// strOrNull writes s as a JSON string, or null when it is "".
func (o *out) strOrNull(s string) {
	if s == "" {
		o.raw("null")
		return
	}
	o.str(s)
}

// The corpus stands for what other programs write, and a reader must take
// every spelling of a string JSON allows, not only the one evtools writes.
// So tool output, the text most likely to hold unusual characters, is
// written in one of two foreign spellings instead of jsontext's:
//
//   - spellRaw: every non-ASCII rune as UTF-8, U+2028 and U+2029 included,
//     as zot, JavaScript's JSON.stringify and Python with
//     ensure_ascii=False do; a reader must not split a record at a raw
//     U+2028;
//   - spellASCII: every non-ASCII rune as \uXXXX (surrogate pairs above the
//     BMP), as Python's default ensure_ascii=True does.
//
// Both escape '"', '\\' and C0 controls, as JSON requires; s must be valid
// UTF-8 (the pools are).
type spelling uint8

const (
	spellRaw spelling = iota
	spellASCII
)

// foreign writes s as a JSON string in the spelling sp.
func (o *out) foreign(s string, sp spelling) { o.b = appendForeign(o.b, s, sp) }

// fixed writes v/10^dec as a decimal with at least one digit after the
// point ("0.000412", "1793491200.0"): the corpus's timestamps and costs
// stand for floats written by Python and JavaScript producers, which keep
// the ".0" that jsontext.AppendFixed (evtools' own spelling) drops.
func (o *out) fixed(v int64, dec int) { o.b = appendFixed(o.b, v, dec) }

func appendFixed(b []byte, v int64, dec int) []byte {
	n := len(b)
	b = jsontext.AppendFixed(b, v, dec)
	if bytes.IndexByte(b[n:], '.') < 0 {
		b = append(b, '.', '0')
	}
	return b
}

const hexDigits = "0123456789abcdef"

func appendForeign(b []byte, s string, sp spelling) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && (c < utf8.RuneSelf || sp == spellRaw) {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r >= 0x10000 {
				r -= 0x10000
				b = jsontext.AppendU(b, 0xd800+(r>>10))
				b = jsontext.AppendU(b, 0xdc00+(r&0x3ff))
			} else {
				b = jsontext.AppendU(b, r)
			}
			i += size
			start = i
			continue
		}
		b = jsontext.AppendEscape(b, c)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
