package ev2otlp

import "encoding/binary"

// Ids are made from what the log says, not drawn at random, so that the
// same log exported twice gives the same traces and a backend that is
// sent a run again keeps one copy: a trace's id comes from its run id, a
// span's from its run id and the seq of the event that began it.

// traceID is the trace id of the run called run.
func traceID(run string) (id [16]byte) {
	h := fnv(0xcbf29ce484222325, run)
	binary.BigEndian.PutUint64(id[:8], nonZero(mix(h)))
	binary.BigEndian.PutUint64(id[8:], mix(h^0x9e3779b97f4a7c15))
	return id
}

// spanID is the id of the span that the event numbered seq of the run
// called run began.
func spanID(run string, seq int64) (id [8]byte) {
	h := fnv(0x84222325cbf29ce4, run)
	binary.BigEndian.PutUint64(id[:], nonZero(mix(h^mix(uint64(seq)))))
	return id
}

// fnv is FNV-1a over s from the offset basis h.
func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// mix is splitmix64's finaliser: every bit of x moves every bit of the
// result, so that runs r_1 and r_2 get ids nothing alike.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// nonZero keeps an id from being all zeros, which OTLP reads as no id.
func nonZero(x uint64) uint64 {
	if x == 0 {
		return 1
	}
	return x
}

// appendHex appends id (8 or 16 bytes) in lowercase hex, four bytes at a
// time: encoding/hex's byte at a time was a fortieth of the tool's
// instructions, three ids a span.
func appendHex(dst []byte, id []byte) []byte {
	for ; len(id) >= 4; id = id[4:] {
		dst = binary.BigEndian.AppendUint64(dst, hexDigits(binary.BigEndian.Uint32(id)))
	}
	return dst
}

// hexDigits is v's eight hex digits, the first in the top byte: each
// nibble spread to a byte of its own, then '0' added, and 'a'-'0'-10
// more to those of 10 and over (which 6 more carries into bit 4).
func hexDigits(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}
