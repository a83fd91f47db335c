package summary

import (
	"math"
	"strconv"
)

// pow10 holds the scales used for fixed-point sums.
var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

// parseFixed reads a JSON number as an integer count of 10^-scale units,
// without going through float64 for plain decimals, so that sums are exact
// and the same in whatever order they are added (costs, timestamps).
// Digits past the scale are dropped; an exponent falls back to float64.
func parseFixed(b []byte, scale int) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
	}
	var v int64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > math.MaxInt64/100 {
			return parseFloatFixed(b, scale)
		}
		v = v*10 + int64(b[i]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if frac < scale {
				v = v*10 + int64(b[i]-'0')
				frac++
			}
		}
	}
	if i < len(b) {
		if b[i] == 'e' || b[i] == 'E' {
			return parseFloatFixed(b, scale)
		}
		return 0, false
	}
	if v > math.MaxInt64/pow10[scale-frac] {
		return parseFloatFixed(b, scale)
	}
	v *= pow10[scale-frac]
	if neg {
		v = -v
	}
	return v, true
}

func parseFloatFixed(b []byte, scale int) (int64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	f = math.Round(f * float64(pow10[scale]))
	if f > math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

// appendFixed writes v/10^scale as a decimal without trailing zeros.
func appendFixed(b []byte, v int64, scale int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	p := pow10[scale]
	b = strconv.AppendInt(b, v/p, 10)
	frac := v % p
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	for d := scale - 1; d >= 0 && frac != 0; d-- {
		b = append(b, byte('0'+frac/pow10[d]))
		frac %= pow10[d]
	}
	return b
}
