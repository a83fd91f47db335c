package archive

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// segmentLines reads a segment back, its frames one stream.
func segmentLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, _ := zstd.NewReader(f)
	defer z.Close()
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func event(run string, ts int, text string) string {
	return fmt.Sprintf(`{"seq":1,"ts":%d,"run_id":%q,"kind":"user_message","payload":{"text":%q}}`, ts, run, text) + "\n"
}

// A sync puts each run's events into the segment of the day of its first
// event, a run going on past midnight included, in the order written,
// whatever the lines were cut into; the manifest counts them; a second
// sync adds to a day by a new segment that holds the old one's events
// and its own, and the old is removed once the new manifest is in.
func TestSyncWritesRunsByDay(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, "lap top")
	if err != nil {
		t.Fatal(err)
	}
	const day1, day2 = 1772409600, 1772496000 // 2026-03-02 and -03, 00:00 UTC
	var in bytes.Buffer
	in.WriteString(event("r1", day1+60, "a"))
	in.WriteString(event("r2", day2-60, "b"))  // the run begins before midnight
	in.WriteString(event("r2", day2+60, "b2")) // and goes on after it
	in.WriteString(event("r3", day2+120, "c"))
	addLines(t, s, in.Bytes())
	if err := s.Commit([]byte("state 1")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "lap_top")
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Host != "lap top" || m.Generation != 1 || len(m.Segments) != 2 {
		t.Fatalf("manifest %+v", m)
	}
	if got := segmentLines(t, filepath.Join(dir, m.Segments[0].Name)); len(got) != 3 || m.Segments[0].Events != 3 || m.Segments[0].Day != "2026-03-02" {
		t.Errorf("2026-03-02 holds %q (%+v)", got, m.Segments[0])
	}
	if got := segmentLines(t, filepath.Join(dir, m.Segments[1].Name)); len(got) != 1 || !strings.Contains(got[0], `"c"`) {
		t.Errorf("2026-03-03 holds %q", got)
	}

	s, err = Open(root, "lap top")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := s.State(); string(st) != "state 1" {
		t.Errorf("the state read back is %q", st)
	}
	s.Add([]byte(event("r4", day2+300, "d")))
	if err := s.Commit([]byte("state 2")); err != nil {
		t.Fatal(err)
	}
	m2, _ := Load(dir)
	if m2.Generation != 2 || m2.Segments[0] != m.Segments[0] || m2.Segments[1].Events != 2 {
		t.Fatalf("second manifest %+v", m2)
	}
	if got := segmentLines(t, filepath.Join(dir, m2.Segments[1].Name)); len(got) != 2 || !strings.Contains(got[1], `"d"`) {
		t.Errorf("2026-03-03 after the second sync holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{m2.Segments[0].Name, m2.Segments[1].Name, ManifestName, "state.g2.json", "sync.lock"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("the host's folder holds %v, want %v", names, want)
	}
}

// A sync not committed leaves the archive as it was, and its files are
// gone; a sync with nothing new commits nothing; a second sync of the
// host while one is under way is refused.
func TestSyncNotCommitted(t *testing.T) {
	root := t.TempDir()
	s, _ := Open(root, "h")
	s.Add([]byte(event("r1", 1772409600, "a")))
	if err := s.Commit([]byte("s")); err != nil {
		t.Fatal(err)
	}
	s, _ = Open(root, "h")
	if _, err := Open(root, "h"); err != ErrBusy {
		t.Errorf("a second sync at once: %v, want ErrBusy", err)
	}
	s.Add([]byte(event("r2", 1772409700, strings.Repeat("x", 3<<20)))) // a chunk handed to the compressor
	s.Close()
	m, _ := Load(filepath.Join(root, "h"))
	if m.Generation != 1 || m.Segments[0].Events != 1 {
		t.Errorf("after a sync not committed: %+v", m)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "h"))
	if len(entries) != 4 {
		t.Errorf("files left: %v", entries)
	}
	s, _ = Open(root, "h")
	if err := s.Commit([]byte("s")); err != nil {
		t.Fatal(err)
	}
	if m2, _ := Load(filepath.Join(root, "h")); m2.Generation != 1 {
		t.Errorf("a sync with nothing new made generation %d", m2.Generation)
	}
}

// Find reads each host once: copies of one host (the same id) found
// twice are one, the newest generation; hosts of other ids are all read;
// a damaged manifest is said and skipped.
func TestFindCopies(t *testing.T) {
	root := t.TempDir()
	write := func(dir, id string, gen int64) {
		os.MkdirAll(filepath.Join(root, dir), 0o755)
		data := fmt.Sprintf(`{"version":1,"host":"h","id":%q,"generation":%d,"segments":[]}`, id, gen)
		os.WriteFile(filepath.Join(root, dir, ManifestName), []byte(data), 0o644)
	}
	write("laptop", "aaaa", 3)
	write("copy/laptop", "aaaa", 5)
	write("old/laptop", "aaaa", 2)
	write("desk", "bbbb", 1)
	os.MkdirAll(filepath.Join(root, "bad"), 0o755)
	os.WriteFile(filepath.Join(root, "bad", ManifestName), []byte("{"), 0o644)
	var bad []string
	hosts, err := Find(root, func(p string, err error) { bad = append(bad, p) })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hosts {
		rel, _ := filepath.Rel(root, h.Dir)
		got = append(got, fmt.Sprintf("%s %s g%d", h.Manifest.ID, rel, h.Manifest.Generation))
	}
	if want := []string{"aaaa copy/laptop g5", "bbbb desk g1"}; !slices.Equal(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
	if len(bad) != 1 || !strings.HasSuffix(bad[0], filepath.Join("bad", ManifestName)) {
		t.Errorf("said bad: %v", bad)
	}
}

func TestHostDir(t *testing.T) {
	for name, want := range map[string]string{"laptop": "laptop", "a b/c": "a_b_c", ".hidden": "host-.hidden", "": "host-"} {
		if got := filepath.Base(HostDir("/r", name)); got != want {
			t.Errorf("HostDir(%q) = %q, want %q", name, got, want)
		}
	}
}

// Parse takes any bytes without a panic; what it accepts names segments
// that stay in the host's folder.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"host":"h","id":"a","generation":1,"segments":[{"name":"2026-03-02.g1.jsonl.zst","day":"2026-03-02","events":1,"bytes":9}]}`))
	f.Add([]byte(`{"version":1,"id":"a","segments":[{"name":"../x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		for _, s := range m.Segments {
			if filepath.Base(s.Name) != s.Name || strings.HasPrefix(s.Name, ".") {
				t.Fatalf("segment name %q leaves the folder", s.Name)
			}
		}
	})
}

// BenchmarkSyncWrite is a first sync's writing: events of many runs over
// a few days routed to their days, compressed and committed.
func BenchmarkSyncWrite(b *testing.B) {
	var in bytes.Buffer
	for i := range 20000 {
		in.WriteString(event(fmt.Sprintf("s/%d", i/20), 1772409600+i*13, strings.Repeat("a reply of some length ", 8)))
	}
	b.SetBytes(int64(in.Len()))
	for b.Loop() {
		s, err := Open(b.TempDir(), "h")
		if err != nil {
			b.Fatal(err)
		}
		if err := addAll(s, in.Bytes()); err != nil {
			b.Fatal(err)
		}
		if err := s.Commit([]byte("s")); err != nil {
			b.Fatal(err)
		}
	}
}

// addAll adds the lines of data to s.
func addAll(s *Sync, data []byte) error {
	for line := range bytes.Lines(data) {
		if err := s.Add(line); err != nil {
			return err
		}
	}
	return nil
}

func addLines(t *testing.T, s *Sync, data []byte) {
	t.Helper()
	if err := addAll(s, data); err != nil {
		t.Fatal(err)
	}
}
