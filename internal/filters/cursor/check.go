package cursor

import "github.com/evtools/evtools/internal/core/jsontext"

// Checker follows seq through a stream and names what breaks the rule
// "seq increases by one": a gap, a repeat, a step back. A producer that
// restarts counts from 1 (or 0) again; that is one "restart", not a flood of
// reports. After an anomaly the checker follows the new value, so one gap
// is reported once.
type Checker struct {
	prev []byte
	next jsontext.Counter // prev+1, so the usual case is one byte compare
	have bool
}

// Next takes the next seq (canonical digits) and returns the anomaly it
// shows, such as "seq 17 after 15: 1 missing", or "" when all is well.
func (c *Checker) Next(seq []byte) string {
	if c.have && string(seq) == string(c.next.Bytes()) {
		c.prev = append(c.prev[:0], seq...)
		c.next.Inc()
		return ""
	}
	defer func() {
		c.prev = append(c.prev[:0], seq...)
		c.next.Set(seq)
		c.next.Inc()
		c.have = true
	}()
	if !c.have {
		return ""
	}
	head := "seq " + Short(seq) + " after " + Short(c.prev) + ": "
	switch CompareSeq(seq, c.prev) {
	case 0:
		return head + "repeated"
	case -1:
		if string(seq) == "0" || string(seq) == "1" {
			return head + "restart"
		}
		return head + "goes back"
	}
	return head + Short(Missing(c.prev, seq)) + " missing"
}
