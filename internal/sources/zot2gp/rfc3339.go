package zot2gp

import (
	"strconv"
	"time"
)

// appendRFC3339 writes the RFC 3339 time s as Unix seconds with every
// decimal of its fraction (trailing zeros dropped), and reports whether s is
// one. It follows RFC 3339 itself rather than Go's layout: the letters T
// and Z may be lowercase, the fraction may have any number of digits, and a
// leap second (23:59:60 in UTC) is the second after 23:59:59, as Unix time
// counts it (the same ts as 00:00:00 of the next day).
func appendRFC3339(dst, s []byte) ([]byte, bool) {
	minute, sec, rest, ok := dateTime(s)
	if !ok {
		return dst, false
	}
	frac, rest, ok := fraction(rest)
	if !ok {
		return dst, false
	}
	offset, ok := utcOffset(rest)
	if !ok {
		return dst, false
	}
	unix := minute - offset
	// A leap second is only ever inserted at the end of a UTC day.
	if sec == 60 && (unix%86400+86400)%86400 != 86400-60 {
		return dst, false
	}
	return appendSeconds(dst, unix+int64(sec), frac), true
}

// dateTime reads YYYY-MM-DDTHH:MM:SS at the start of s, at least 20 bytes
// long: the Unix time of its minute as if it were UTC, its second (60 for
// a leap second) and the rest of s.
func dateTime(s []byte) (minuteUnix int64, sec int, rest []byte, ok bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return 0, 0, nil, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 60 {
		return 0, 0, nil, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, 0, 0, time.UTC).Unix(), sec, s[19:], true
}

// fraction reads the fraction of a second (".123") at the start of rest,
// if there is one: its digits, and what follows them.
func fraction(rest []byte) (frac, after []byte, ok bool) {
	if rest[0] != '.' {
		return nil, rest, true
	}
	n := 1
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 1 {
		return nil, nil, false
	}
	return rest[1:n], rest[n:], true
}

// utcOffset reads the time zone that ends a time, Z or ±HH:MM, as seconds
// east of UTC.
func utcOffset(rest []byte) (int64, bool) {
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
		return 0, true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		offset := int64(oh*3600 + om*60)
		if rest[0] == '-' {
			offset = -offset
		}
		return offset, true
	}
	return 0, false
}

// appendSeconds writes Unix seconds and the digits of a fraction of a
// second after them, trailing zeros dropped.
func appendSeconds(dst []byte, unix int64, frac []byte) []byte {
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(frac) == 0 {
		return strconv.AppendInt(dst, unix, 10)
	}
	if unix >= 0 {
		dst = strconv.AppendInt(dst, unix, 10)
		dst = append(dst, '.')
		return append(dst, frac...)
	}
	// Before 1970: -2 s + 0.25 is -1.75, the fraction's ten's complement.
	unix++
	if unix == 0 {
		dst = append(dst, '-')
	}
	dst = strconv.AppendInt(dst, unix, 10)
	dst = append(dst, '.')
	last := len(frac) - 1 // not '0': trailing zeros are gone
	for i, c := range frac {
		if i == last {
			dst = append(dst, '0'+10-(c-'0'))
		} else {
			dst = append(dst, '0'+9-(c-'0'))
		}
	}
	return dst
}

// digits reads a fixed-width unsigned decimal.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
