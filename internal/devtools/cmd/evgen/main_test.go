package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"4096", 4096, true},
		{"64K", 64 << 10, true},
		{"64k", 64 << 10, true},
		{"100M", 100 << 20, true},
		{"1G", 1 << 30, true},
		{"", 0, false},
		{"M", 0, false},
		{"-5M", 0, false},
		{"1.5G", 0, false},
		{"10MB", 0, false},
		{"9223372036854775807G", 0, false},
	} {
		got, err := parseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "64K", "100M", "1G", "x", "-1", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
	})
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "z.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-kind", "zot", "-size", "64K", "-seed", "3", "-o", file}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	fromFile, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromFile) < 64<<10 || stdout.Len() != 0 {
		t.Fatalf("file has %d bytes, stdout %d", len(fromFile), stdout.Len())
	}
	if code := run([]string{"-kind", "zot", "-size", "64K", "-seed", "3"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), fromFile) {
		t.Fatal("stdout and -o differ for the same seed")
	}

	stdout.Reset()
	if code := run([]string{"-kind", "envelope", "-size", "10K"}, &stdout, &stderr); code != 0 ||
		!bytes.HasPrefix(stdout.Bytes(), []byte(`{"seq":1,`)) {
		t.Fatalf("envelope: exit %d, output %.80s", code, stdout.String())
	}

	home := t.TempDir()
	if code := run([]string{"-kind", "codex", "-size", "64K", "-o", home}, &stdout, &stderr); code != 0 {
		t.Fatalf("codex: exit %d: %s", code, stderr.String())
	}
	if rollouts, _ := filepath.Glob(filepath.Join(home, ".codex/sessions/*/*/*/rollout-*.jsonl")); len(rollouts) == 0 {
		t.Fatal("codex: no rollout where Codex keeps them")
	}

	for _, args := range [][]string{{"-kind", "csv"}, {"-size", "lots"}, {"extra"}, {"-kind", "claude"}} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "evgen: ") && !strings.Contains(stderr.String(), "flag") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
