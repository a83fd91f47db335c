package cursor

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseSeq(t *testing.T) {
	tests := []struct {
		raw string
		ok  bool
	}{
		{"0", true},
		{"1", true},
		{"17", true},
		{"9007199254740993", true},
		{"123456789012345678901234567890", true},
		{"", false},
		{"-1", false},
		{"-0", false},
		{"1.0", false},
		{"1e3", false},
		{`"12"`, false},
		{"null", false},
		{"01", false},
		{"true", false},
	}
	for _, tt := range tests {
		got, err := ParseSeq([]byte(tt.raw))
		if (err == nil) != tt.ok {
			t.Errorf("ParseSeq(%q) error %v, want ok=%v", tt.raw, err, tt.ok)
			continue
		}
		if tt.ok && string(got) != tt.raw {
			t.Errorf("ParseSeq(%q) = %q", tt.raw, got)
		}
		if !tt.ok && !errors.Is(err, ErrNotSeq) {
			t.Errorf("ParseSeq(%q) error %v is not ErrNotSeq", tt.raw, err)
		}
	}
}

func TestParseSeqArg(t *testing.T) {
	tests := []struct{ arg, want string }{
		{"1", "1"},
		{"0", "0"},
		{"000", "0"},
		{"007", "7"},
		{"9007199254740993", "9007199254740993"},
		{"", ""},
		{"-5", ""},
		{"1.5", ""},
		{"x", ""},
		{" 1", ""},
	}
	for _, tt := range tests {
		got, err := ParseSeqArg(tt.arg)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseSeqArg(%q) = %q, want an error", tt.arg, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("ParseSeqArg(%q) = %q, %v, want %q", tt.arg, got, err, tt.want)
		}
	}
}

func TestCompareSeq(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1", "1", 0},
		{"1", "2", -1},
		{"2", "1", 1},
		{"9", "10", -1},
		{"10", "9", 1},
		{"0", "1", -1},
		{"18446744073709551616", "18446744073709551615", 1},
		{"9007199254740993", "9007199254740992", 1},
		{"100000000000000000000000", "100000000000000000000000", 0},
	}
	for _, tt := range tests {
		if got := CompareSeq([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("CompareSeq(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMissing(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"15", "17", "1"},
		{"1", "2", "0"},
		{"1", "1", "0"},
		{"5", "3", "0"},
		{"0", "1000", "999"},
		{"18446744073709551615", "18446744073709551617", "1"}, // past uint64
		{"1", "100000000000000000000000", "99999999999999999999998"},
	}
	for _, tt := range tests {
		if got := Missing([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Missing(%s, %s) = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCompareNumber(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1", "2", -1},
		{"1758800000.12", "1758800000.12", 0},
		{"1758800000.12", "1758800000.120", 0},
		{"1758800000.13", "1758800000.12", 1},
		// Equal as float64, different as decimals.
		{"1758800000.1234567", "1758800000.1234568", -1},
		{"1758800000.12345678901", "1758800000.12345678900", 1},
		{"1e3", "1000", 0},
		{"1e3", "999", 1},
		{"-1", "1", -1},
		{"1e999999999", "2e999999999", 0}, // both overflow: not worth a bignum
	}
	for _, tt := range tests {
		if got := CompareNumber([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("CompareNumber(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func renumbered(t testing.TB, line, seq string) (string, error) {
	t.Helper()
	var e Event
	if err := e.Scan([]byte(line)); err != nil {
		return "", err
	}
	return string(appendRenumbered(nil, &e, []byte(seq))), nil
}

func TestRenumber(t *testing.T) {
	tests := []struct {
		name, line, seq, want string
	}{
		{"first key", `{"seq":12,"ts":1.5,"kind":"x"}`, "1", `{"seq":1,"ts":1.5,"kind":"x"}`},
		{"last key", `{"kind":"x","seq":12}`, "3", `{"kind":"x","seq":3}`},
		{"spacing kept", `{ "a" : 1.50 ,  "seq" :  12  , "b":[1, 2] }`, "7", `{ "a" : 1.50 ,  "seq" :  7  , "b":[1, 2] }`},
		{"longer value", `{"seq":9,"x":1}`, "10000000000000000000001", `{"seq":10000000000000000000001,"x":1}`},
		{"shorter value", `{"seq":123456,"x":1}`, "1", `{"seq":1,"x":1}`},
		{"nested seq untouched", `{"payload":{"seq":5},"seq":6}`, "1", `{"payload":{"seq":5},"seq":1}`},
		{"no seq: first key", `{"ts":1,"kind":"x"}`, "4", `{"seq":4,"ts":1,"kind":"x"}`},
		{"no seq: empty object", `{}`, "4", `{"seq":4}`},
		{"no seq: empty object with space", `{ }`, "4", `{"seq":4 }`},
		{"no seq: leading space", `  {"a":1}`, "2", `  {"seq":2,"a":1}`},
		{"bad seq value replaced", `{"seq":"x","a":1}`, "2", `{"seq":2,"a":1}`},
		{"seq object replaced", `{"seq":{"n":[1,2]},"a":1}`, "2", `{"seq":2,"a":1}`},
		{"escaped key", `{"s\u0065q":9,"a":1}`, "2", `{"s\u0065q":2,"a":1}`},
		{"duplicates all rewritten", `{"seq":1,"a":0,"seq":2}`, "8", `{"seq":8,"a":0,"seq":8}`},
		{"numbers and unicode kept", `{"seq":1,"ts":1.0e3,"t":"ü\u00fc"}`, "5", `{"seq":5,"ts":1.0e3,"t":"ü\u00fc"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renumbered(t, tt.line, tt.seq)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestScanReportsBadLines(t *testing.T) {
	for _, line := range []string{`[1]`, `{"seq":1`, `{"seq":1} x`, `not json`, `"s"`} {
		var e Event
		if err := e.Scan([]byte(line)); err == nil {
			t.Errorf("Scan(%s) = nil, want an error", line)
		}
	}
}

func TestSeqValue(t *testing.T) {
	tests := []struct{ line, want, err string }{
		{`{"seq":5}`, "5", ""},
		{`{"seq":5,"seq":6}`, "6", ""}, // last wins
		{`{"a":1}`, "", "no seq"},
		{`{"seq":-1}`, "", "seq -1 is not a non-negative integer"},
		{`{"seq":"5"}`, "", `seq "5" is not a non-negative integer`},
		{`{"seq":"` + strings.Repeat("x", 100) + `"}`, "", `seq "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... is not a non-negative integer`},
		// 40 bytes are shown whole; 41 are cut to 37 and "..."
		{`{"seq":"` + strings.Repeat("y", 38) + `"}`, "", `seq "` + strings.Repeat("y", 38) + `" is not a non-negative integer`},
		{`{"seq":"` + strings.Repeat("z", 39) + `"}`, "", `seq "` + strings.Repeat("z", 36) + `... is not a non-negative integer`},
	}
	for _, tt := range tests {
		var e Event
		if err := e.Scan([]byte(tt.line)); err != nil {
			t.Fatal(err)
		}
		got, err := e.SeqValue()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: error %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, []byte(tt.want)) {
			t.Errorf("%s: %s, %v, want %s", tt.line, got, err, tt.want)
		}
	}
}

func TestChecker(t *testing.T) {
	seqs := []string{"5", "6", "8", "8", "9", "1", "2", "3", "2", "3", "100000000000000000000", "100000000000000000003", "0"}
	want := []string{
		"", "",
		"seq 8 after 6: 1 missing",
		"seq 8 after 8: repeated",
		"",
		"seq 1 after 9: restart",
		"", "",
		"seq 2 after 3: goes back",
		"",
		"seq 100000000000000000000 after 3: 99999999999999999996 missing",
		"seq 100000000000000000003 after 100000000000000000000: 2 missing",
		"seq 0 after 100000000000000000003: restart",
	}
	var c Checker
	for i, s := range seqs {
		if got := c.Next([]byte(s)); got != want[i] {
			t.Errorf("seq #%d %s: %q, want %q", i, s, got, want[i])
		}
	}
}

// Missing past uint64 subtracts digit by digit: the same as math/big.
func TestMissingMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	digits := func() string {
		n := 1 + rng.IntN(45)
		b := []byte{byte('1' + rng.IntN(9))}
		for len(b) < n {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		if rng.IntN(4) == 0 {
			return "0"
		}
		return string(b)
	}
	for i := 0; i < 5000; i++ {
		a, b := digits(), digits()
		var x, y big.Int
		x.SetString(a, 10)
		y.SetString(b, 10)
		y.Sub(&y, &x)
		y.Sub(&y, big.NewInt(1))
		want := y.String()
		if y.Sign() < 0 {
			want = "0"
		}
		if got := Missing([]byte(a), []byte(b)); got != want {
			t.Fatalf("Missing(%s, %s) = %s, want %s", a, b, got, want)
		}
	}
}

// A seq of a million digits is checked in linear time (math/big took
// minutes on four million) and reported cut, not echoed whole.
func TestCheckerHugeSeq(t *testing.T) {
	const n = 1 << 20
	a := "1" + strings.Repeat("0", n)
	b := "1" + strings.Repeat("0", n-1) + "5"
	var c Checker
	c.Next([]byte(a))
	msg := c.Next([]byte(b))
	want := "seq 10000000000000000000...0000000005 (1048577 characters) after 10000000000000000000...0000000000 (1048577 characters): 4 missing"
	if msg != want {
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		t.Errorf("got %q, want %q", msg, want)
	}
	if got := Missing([]byte("9"+strings.Repeat("0", n)), []byte("1"+strings.Repeat("0", n+1))); got != strings.Repeat("9", n) {
		t.Errorf("Missing of huge seqs: %d digits, %.20s...", len(got), got)
	}
	if got := Short(strings.Repeat("7", 50)); got != strings.Repeat("7", 50) {
		t.Errorf("Short cut a value of 50 characters: %s", got)
	}
}

// Huge ts values that round to the same float are compared exactly, in
// linear time (math/big.Rat is quadratic on millions of digits).
func TestCompareNumberHuge(t *testing.T) {
	big1 := "1" + strings.Repeat("0", 1<<20) + ".5"
	big2 := "1" + strings.Repeat("0", 1<<20) + ".50000001"
	tests := []struct {
		a, b string
		want int
	}{
		{big1, big2, -1},
		{big2, big1, 1},
		{"-" + big1, "-" + big2, 1},
		{"-0.0", "0", 0},
		{"-1.5", "-1.50", 0},
		{"-1.25", "-1.5", 1},
		{"0.000000000000000000001", "0.0000000000000000000010000000001", -1},
		{"-0.000000000000000000001", "0.0000000000000000000001", -1},
	}
	for _, tt := range tests {
		if got := CompareNumber([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("CompareNumber(%.30s, %.30s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
