package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/shell/cli"
)

func TestProgressLine(t *testing.T) {
	const (
		GB = 1_000_000_000
		MB = 1_000_000
	)
	for _, tt := range []struct {
		read, total int64
		elapsed     time.Duration
		width       int
		want        string
	}{
		// What is left out as the terminal narrows: the total, the rate,
		// the bytes read, the name, the time left; a column is kept free.
		{412 * MB, GB, 2 * time.Second, 80, "evfilter: 412 MB of 1.0 GB (41%), 206 MB/s, 3s left"},
		{412 * MB, GB, 2 * time.Second, 52, "evfilter: 412 MB of 1.0 GB (41%), 206 MB/s, 3s left"},
		{412 * MB, GB, 2 * time.Second, 51, "evfilter: 412 MB (41%), 206 MB/s, 3s left"},
		{412 * MB, GB, 2 * time.Second, 42, "evfilter: 412 MB (41%), 206 MB/s, 3s left"},
		{412 * MB, GB, 2 * time.Second, 41, "evfilter: 412 MB (41%), 3s left"},
		{412 * MB, GB, 2 * time.Second, 32, "evfilter: 412 MB (41%), 3s left"},
		{412 * MB, GB, 2 * time.Second, 31, "evfilter: 41%, 3s left"},
		{412 * MB, GB, 2 * time.Second, 23, "evfilter: 41%, 3s left"},
		{412 * MB, GB, 2 * time.Second, 22, "41%, 3s left"},
		{412 * MB, GB, 2 * time.Second, 13, "41%, 3s left"},
		{412 * MB, GB, 2 * time.Second, 12, "41%"},
		{412 * MB, GB, 2 * time.Second, 4, "41%"},
		{412 * MB, GB, 2 * time.Second, 3, ""},
		// Small and large sizes, minutes and hours left, rounded up.
		{512, 2048, time.Second, 80, "evfilter: 512 B of 2.0 kB (25%), 512 B/s, 3s left"},
		{GB, 100 * GB, 10 * time.Second, 80, "evfilter: 1.0 GB of 100 GB (1%), 100 MB/s, 16m30s left"},
		{MB, 10 * GB, time.Second, 80, "evfilter: 1.0 MB of 10 GB (0%), 1.0 MB/s, 2h46m left"},
		{999 * MB, GB, 999 * time.Second, 80, "evfilter: 999 MB of 1.0 GB (99%), 1.0 MB/s, 1s left"},
		{GB, GB, 4 * time.Second, 80, "evfilter: 1.0 GB of 1.0 GB (100%), 250 MB/s"},
		// Nothing read yet: no time left to tell.
		{0, GB, time.Second, 80, "evfilter: 0 B of 1.0 GB (0%), 0 B/s"},
		// A file that grew while it was read (a live log): no share.
		{2 * GB, GB, 4 * time.Second, 80, "evfilter: 2.0 GB, 500 MB/s"},
		{2 * GB, GB, 4 * time.Second, 20, "evfilter: 2.0 GB"},
		{2 * GB, GB, 4 * time.Second, 10, "2.0 GB"},
	} {
		if got := progressLine("evfilter", tt.read, tt.total, tt.elapsed, tt.width); got != tt.want {
			t.Errorf("%d of %d in %v, width %d:\n got %q\nwant %q", tt.read, tt.total, tt.elapsed, tt.width, got, tt.want)
		}
	}
}

func TestByteSize(t *testing.T) {
	for _, tt := range []struct {
		n    float64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {999.6, "1.0 kB"}, {1000, "1.0 kB"}, {9_940, "9.9 kB"},
		{9_960, "10 kB"}, {999_400, "999 kB"}, {999_600, "1.0 MB"}, {412e6, "412 MB"},
		{1.05e9, "1.1 GB"}, {3e12, "3.0 TB"}, {5e21, "5000 EB"},
	} {
		if got := byteSize(tt.n); got != tt.want {
			t.Errorf("byteSize(%v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		s    float64
		want string
	}{
		{0, "0s"}, {0.2, "1s"}, {59, "59s"}, {59.5, "1m00s"}, {65, "1m05s"},
		{3599, "59m59s"}, {3600, "1h00m"}, {7385, "2h03m"}, {1e300, "596523h14m"},
	} {
		if got := duration(tt.s); got != tt.want {
			t.Errorf("duration(%v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// The meter shows nothing in the first second, redraws at most every
// 200 ms, and clears only what it drew.
func TestProgressMeter(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	now := t0
	var w bytes.Buffer
	width := 80
	p := newProgress("evx", &w, 1000, func() time.Time { return now }, func() int { return width })
	line := func(s string) string { return "\r" + s + "\x1b[K" }
	for i, step := range []struct {
		at    time.Duration // since the start; -1: Clear instead of Read
		read  int
		width int
		want  string
	}{
		{0, 100, 80, ""},
		{999 * time.Millisecond, 100, 80, ""},
		{time.Second, 100, 80, line("evx: 300 B of 1.0 kB (30%), 300 B/s, 3s left")},
		{1199 * time.Millisecond, 100, 80, ""},
		{1200 * time.Millisecond, 0, 80, line("evx: 400 B of 1.0 kB (40%), 333 B/s, 2s left")},
		{-1, 0, 80, "\r\x1b[K"},
		{-1, 0, 80, ""},
		{1300 * time.Millisecond, 100, 80, ""},
		{1400 * time.Millisecond, 100, 20, line("evx: 60%, 1s left")},
		{2 * time.Second, 500, 80, line("evx: 1.1 kB, 550 B/s")},
		{-1, 0, 80, "\r\x1b[K"},
	} {
		w.Reset()
		width = step.width
		if step.at < 0 {
			p.Clear()
		} else {
			now = t0.Add(step.at)
			p.Read(step.read)
		}
		if w.String() != step.want {
			t.Errorf("step %d: wrote %q, want %q", i, w.String(), step.want)
		}
	}
}

// Where stderr is not a terminal, or the input is no regular file, there
// is no meter at all: nothing can be written, and nothing is counted.
func TestNoProgressOffTerminal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(file, []byte(strings.Repeat("{}\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, stderr := range []any{&bytes.Buffer{}, f, pw, nil} {
		w, _ := stderr.(interface{ Write([]byte) (int, error) })
		if m := New("evx", cli.Stdio{Err: w}, []string{file}); m != nil {
			t.Errorf("stderr %T: a meter", stderr)
		}
	}
}

// The size to measure against is that of the regular files; a file that
// cannot be read is skipped as the tool skips it; stdin counts from where
// it stands; a pipe or a device has no size, and turns the meter off.
func TestInputSize(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz")
	os.WriteFile(a, make([]byte, 100), 0o644)
	os.WriteFile(b, make([]byte, 50), 0o644)
	stdin, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if _, err := stdin.Seek(30, 0); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, tt := range []struct {
		names []string
		stdin any
		total int64
		ok    bool
	}{
		{[]string{a, b}, nil, 150, true},
		{[]string{a, filepath.Join(dir, "missing"), dir}, nil, 100, true},
		{[]string{filepath.Join(dir, "missing")}, nil, 0, false},
		{nil, stdin, 70, true},
		{[]string{"-", b}, stdin, 120, true},
		{nil, strings.NewReader("{}\n"), 0, false},
		{nil, pr, 0, false},
		{[]string{a, os.DevNull}, nil, 0, false},
		{[]string{"-", a}, pr, 0, false},
	} {
		r, _ := tt.stdin.(interface{ Read([]byte) (int, error) })
		total, ok := inputSize(tt.names, r)
		if total != tt.total && ok || ok != tt.ok {
			t.Errorf("%q, stdin %T: %d, %v; want %d, %v", tt.names, tt.stdin, total, ok, tt.total, tt.ok)
		}
	}
}
