package zot2gp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/sources/zot"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// config is what the converter needs from the options.
type config struct {
	UI       bool
	Bare     bool
	Stable   bool   // --ts=stable
	SeqStart string // decimal digits
	RunID    string // "" for the default naming
	Agent    string
}

// converter turns zot event lines into envelope (or bare) lines. It holds
// the stream's state: the next seq, the current run, the last time seen.
type converter struct {
	ui, bare, stable bool
	clock            bool // events without a time get the clock (else 0, or the last time with stable)

	seq    *jsontext.Counter // the next seq
	agent  []byte            // agent_id as a JSON string
	kinds  map[string][]byte // zot type -> glasspane kind as a JSON string
	failed []byte            // the kind of a failed response, as a JSON string

	runBase     string
	runExplicit bool
	runN        int
	inRun       bool
	runID       []byte // the current run_id as a JSON string
	idBuf       []byte // the current run_id, unquoted

	lastTS []byte // ts of the last event with a time (stable mode)
	// judge: the input may be a stored stream coming through a pipe
	// (--ts auto on a pipe), so each recorded time says whether the clock
	// is this stream's time (see judgeClock); judged: one was seen.
	judge, judged bool
	at            int64  // when set, the clock's reading to use: a held event's arrival (see holder)
	nowMS         int64  // the clock's last reading, Unix milliseconds
	nowTS         []byte // nowMS formatted
	tsBuf         []byte
	strBuf        []byte
	now           func() time.Time

	f zot.Fields

	// direct, when set, takes the long raw parts of an output line as they
	// are in the input, without a copy (see raw); nil appends them too.
	direct interface{ Write([]byte) (int, error) }
}

// directMin is how long a raw part of the input must be to be written
// straight from the input line rather than copied into the output line.
var directMin = 64 << 10

// raw appends the part p of the input line to the output line dst and
// returns what is left to write. With c.direct set and p long, dst so far
// and then p are written to c.direct instead, and the rest of the line is
// built in dst again from empty: an event whose payload is 200 MB is not
// held twice (the input line and an envelope around a copy of it).
func (c *converter) raw(dst, p []byte) []byte {
	if c.direct == nil || len(p) < directMin {
		return append(dst, p...)
	}
	c.direct.Write(dst)
	c.direct.Write(p)
	return dst[:0]
}

// errTooDeep is the reason given for an event that nests as deep as the
// limit every tool shares: the envelope adds a level around it, which
// evfilter, evsum and evcursor would refuse.
var errTooDeep = fmt.Errorf("nesting %d levels deep: the envelope around it would be deeper than %d levels, the limit of every tool", jsonscan.MaxDepth, jsonscan.MaxDepth)

var errSeqStart = errors.New("--seq-start: want a non-negative integer")

func newConverter(cfg config, now func() time.Time) (*converter, error) {
	if !jsontext.IsDigits(cfg.SeqStart) {
		return nil, errSeqStart
	}
	c := &converter{
		ui: cfg.UI, bare: cfg.Bare, stable: cfg.Stable,
		seq:    jsontext.NewCounter([]byte(cfg.SeqStart)),
		agent:  jsontext.AppendString(nil, cfg.Agent),
		kinds:  make(map[string][]byte, len(zot.Glasspane)),
		failed: jsontext.AppendString(nil, zot.FailedResponseKind),
		now:    now,
		clock:  !cfg.Stable,
	}
	for typ, kind := range zot.Glasspane {
		c.kinds[typ] = jsontext.AppendString(nil, kind)
	}
	switch {
	case cfg.RunID != "":
		c.runBase, c.runExplicit = cfg.RunID, true
	case cfg.Stable:
		c.runBase = "r"
	default:
		// Runs of different invocations appended to one log must not share
		// ids, so the default base is random unless output must be stable.
		var b [4]byte
		rand.Read(b[:])
		c.runBase = "r_" + hex.EncodeToString(b[:])
	}
	return c, nil
}

// startInput is called before the records of each input. Each input
// starts afresh for time: a time seen in one file says nothing of the next.
// clock says whether the input's events without a time of their own get
// the clock (a live input) or not (a stored transcript).
func (c *converter) startInput(clock bool) {
	c.clock = clock && !c.stable
	c.lastTS = nil
	c.judge, c.judged = false, false
}

// judgeClock makes the clock of the input started last subject to its
// recorded times (--ts auto on a pipe): see clockFits.
func (c *converter) judgeClock() { c.judge = c.clock }

// farFromClock is how far a recorded time may be from the clock for the
// clock to be the stream's time: a live stream's times are the clock's
// (the same machine, or one a second off); a stored one replayed through
// a pipe (cat, zcat) is minutes to months old.
const farFromClock = 60 * time.Second

// clockFits is told the ts of each recorded time, in order, on an input
// being judged. The events without a time that follow it get the clock
// only while the last recorded time was near the clock; else 0, no time
// known, as from a stored file: a replay's clock next to its recorded
// times made a 5-second run 162 days long.
func (c *converter) clockFits(ts []byte) {
	if !c.judge {
		return
	}
	sec, err := strconv.ParseFloat(string(ts), 64)
	if err != nil {
		return
	}
	now := c.now()
	c.judged = true
	c.clock = math.Abs(sec-float64(now.UnixNano())/1e9) <= farFromClock.Seconds()
}

// undecided says that events without a time wait for the input's first
// recorded time, which says whether the clock is theirs (see holder).
func (c *converter) undecided() bool { return c.judge && !c.judged }

// nextRun starts a new run and names it.
func (c *converter) nextRun() {
	c.runN++
	// The id is built in a reused buffer: a stream of short runs should
	// not cost an allocation each.
	id := append(c.idBuf[:0], c.runBase...)
	switch {
	case c.runExplicit && c.runN == 1:
	case c.runExplicit:
		id = strconv.AppendInt(append(id, '.'), int64(c.runN), 10)
	default:
		id = strconv.AppendInt(append(id, '_'), int64(c.runN), 10)
	}
	c.idBuf = id
	c.runID = jsontext.AppendString(c.runID[:0], id)
	c.inRun = true
}

// convert appends the output line for one input record, '\n' included, to
// dst. written is false when --ui drops the event. A non-nil error is the
// reason the record is not a zot event; nothing is appended then and the
// stream's state is unchanged.
func (c *converter) convert(dst, line []byte) (out []byte, written bool, err error) {
	f := &c.f
	if err := zot.Scan(line, f); err != nil {
		return dst, false, err
	}
	// Only a line of 2*MaxDepth bytes can nest that deep, so the common
	// line is not looked at twice.
	if !c.bare && len(line) >= 2*jsonscan.MaxDepth && nestsAtLeast(line, jsonscan.MaxDepth) {
		return dst, false, errTooDeep
	}
	// Runs are cut the same with and without --ui, so ids match.
	if !c.inRun || f.IsPromptAck() {
		c.nextRun()
	}
	typ, row := f.Name, f.Row
	if row != nil && row.Meaning == event.RunEnd {
		c.inRun = false
	}
	ts := c.ts(f.Time)

	kind, mapped := c.kinds[string(typ)]
	if f.Failed() && row != nil && row.Kind == event.Zot.FailedType {
		kind, mapped = c.failed, true
	}
	if !mapped {
		if c.ui {
			return dst, false, nil
		}
		c.strBuf = jsontext.AppendString(c.strBuf[:0], typ)
		kind = c.strBuf
	}

	payload := trimSpace(line)
	if c.bare {
		return c.appendBare(dst, payload, kind), true, nil
	}
	dst = append(dst, `{"seq":`...)
	dst = append(dst, c.seq.Bytes()...)
	dst = append(dst, `,"ts":`...)
	dst = append(dst, ts...)
	dst = append(dst, `,"run_id":`...)
	dst = append(dst, c.runID...)
	dst = append(dst, `,"agent_id":`...)
	if row != nil && row.Session {
		dst = append(dst, `""`...)
	} else {
		dst = append(dst, c.agent...)
	}
	dst = append(dst, `,"kind":`...)
	dst = append(dst, kind...)
	dst = append(dst, `,"payload":`...)
	dst = c.raw(dst, payload)
	dst = append(dst, "}\n"...)
	c.seq.Inc()
	return dst, true, nil
}

// appendBare writes the zot object with every top-level "type" value
// replaced by the kind and the original type (raw, as read) added last as
// "zot_type".
func (c *converter) appendBare(dst, payload, kind []byte) []byte {
	pos := 0
	for _, v := range c.f.TypeValues {
		off := jsonscan.OffsetOf(payload, v)
		dst = c.raw(dst, payload[pos:off])
		dst = append(dst, kind...)
		pos = off + len(v)
	}
	end := len(payload) - 1 // the closing '}'
	dst = c.raw(dst, payload[pos:end])
	dst = append(dst, `,"zot_type":`...)
	dst = append(dst, c.f.Type...)
	dst = append(dst, "}\n"...)
	return dst
}

// ts returns the envelope's ts for an event whose raw "time" value is raw
// (nil when absent).
func (c *converter) ts(raw []byte) []byte {
	if ts, ok := appendTime(c.tsBuf[:0], raw, &c.strBuf); ok {
		c.tsBuf = ts
		c.clockFits(ts)
		if c.stable {
			c.lastTS = append(c.lastTS[:0], c.tsBuf...)
		}
		return c.tsBuf
	}
	if c.stable {
		if c.lastTS == nil {
			return zero
		}
		return c.lastTS
	}
	if !c.clock {
		return zero // not recorded: 0 is "no time known" to every ev* tool
	}
	// The clock is read for every event, but formatted only when its
	// millisecond changes: a burst of events shares one ts.
	ms := c.at
	if ms == 0 {
		ms = c.now().UnixMilli()
	}
	if ms != c.nowMS || c.nowTS == nil {
		c.nowMS = ms
		c.nowTS = jsontext.AppendFixed(c.nowTS[:0], ms, 3) // in seconds
	}
	return c.nowTS
}

var zero = []byte("0")

// appendTime writes the ts of a raw "time" value: Unix seconds, with as
// many decimals as the time has. ok is false, and nothing is written, for
// anything that is not an RFC 3339 time in a JSON string (absent, another
// type, an elided "...").
func appendTime(dst, raw []byte, buf *[]byte) (out []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return dst, false
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		if *buf, ok = jsonscan.Unquote((*buf)[:0], raw); !ok {
			return dst, false
		}
		s = *buf
	}
	return appendRFC3339(dst, s)
}

// nestsAtLeast reports whether the valid JSON text b has a value depth
// levels down (the top level being 1). Brackets inside strings do not count.
func nestsAtLeast(b []byte, depth int) bool {
	d := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end, _ := jsonscan.StringEnd(b, i+1)
			if end < 0 {
				return false
			}
			i = end - 1
		case '{', '[':
			if d++; d >= depth {
				return true
			}
		case '}', ']':
			d--
		}
	}
	return false
}

// trimSpace drops JSON whitespace around the object.
func trimSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
