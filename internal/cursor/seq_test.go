package cursor

import (
	"bytes"
	"errors"
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
	return string(AppendRenumbered(nil, &e, []byte(seq))), nil
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
