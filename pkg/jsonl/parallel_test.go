package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// blocksRecords is eachRecords through Blocks: records judged on workers
// goroutines (the verdict a record's length), taken in order.
func blocksRecords(names []string, size, workers, ahead int, steal bool) string {
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stderr: &stderr}
	engine := Blocks[*int, []int]{
		Workers:   workers,
		Ahead:     ahead,
		Steal:     steal,
		BlockSize: size,
		MaxAhead:  64,
		NewWorker: func() *int { return new(int) },
		Work: func(judged *int, b *Block, lens *[]int) {
			*lens = (*lens)[:0]
			b.Frame(func(i int, rec []byte) {
				*judged++
				*lens = append(*lens, len(rec))
			})
		},
		Take: func(lens *[]int, i int, rec Record) error {
			if (*lens)[i] != len(rec.Data) {
				return fmt.Errorf("verdict %d of another record (%d bytes)", i, len(rec.Data))
			}
			fmt.Fprintf(&out, "%s:%d:%q\n", rec.File, rec.Line, rec.Data)
			return nil
		},
	}
	err := engine.Each(in)
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed())
}

// blockFiles writes blockInputs to files, and adds several files in order,
// one missing, a truncated gzip, a directory, the same file twice (a
// binary one's skipping is its own).
func blockFiles(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var all []string
	for i, s := range blockInputs {
		p := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	cut := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(cut, truncatedGzip(300), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(all, filepath.Join(dir, "missing.jsonl"), cut, dir, all[9], all[4])
}

// Blocks hands Take the records Each hands over, with their verdicts, lines
// and reports in input order, whatever the block size, the workers, the
// blocks read ahead and who judges them (Steal): lines of many MiB (Own, judged on the reading
// goroutine) included.
func TestBlocksEachIsEach(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	all := blockFiles(t)
	for _, rb := range []int{16, 256 << 10} {
		readBufSize = rb
		want := eachRecords(all)
		for _, size := range []int{1, 7, 64, 1 << 16} {
			for _, workers := range []int{1, 3} {
				for _, ahead := range []int{0, 8} {
					for _, steal := range []bool{false, true} {
						if got := blocksRecords(all, size, workers, ahead, steal); got != want {
							t.Fatalf("read buffer %d, block %d, %d workers, %d ahead, steal %v:\n%s\nEach:\n%s", rb, size, workers, ahead, steal, got, want)
						}
					}
				}
			}
		}
	}
}

// An error from Take ends the reading and is what Each returns; the
// workers are gone when it returns.
func TestBlocksStopAtTakeError(t *testing.T) {
	stop := errors.New("stop")
	before := runtime.NumGoroutine()
	in := &Input{Tool: "t", Stdin: strings.NewReader(strings.Repeat("{}\n", 10000)), Stderr: io.Discard}
	taken := 0
	engine := Blocks[struct{}, struct{}]{
		Workers: 4, BlockSize: 30,
		NewWorker: func() struct{} { return struct{}{} },
		Work:      func(_ struct{}, b *Block, _ *struct{}) { b.Frame(func(int, []byte) {}) },
		Take: func(_ *struct{}, _ int, _ Record) error {
			if taken++; taken == 25 {
				return stop
			}
			return nil
		},
	}
	if err := engine.Each(in); err != stop || taken != 25 {
		t.Fatalf("Each = %v after %d records, want %v after 25", err, taken, stop)
	}
	// A worker that has said it is done may still be on its way out when
	// Each returns (1 run in 200 here): give it a second, which a leaked
	// worker, blocked for good, never uses.
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > before && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if n > before {
		t.Errorf("%d goroutines left, %d before", n, before)
	}
}

// partsRecords is eachRecords through Parts: each part's records kept in
// a state of its own (a record that does not start with '{' is bad), the
// states merged in order.
func partsRecords(names []string, workers, buf, maxLine int) string {
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stderr: &stderr}
	engine := Parts[*[]string]{
		Workers: workers, MinPart: 1, BufSize: buf, MaxLine: maxLine,
		New: func() *[]string { return new([]string) },
		Add: func(s *[]string, rec []byte) error {
			if !bytes.HasPrefix(rec, []byte("{")) {
				return errors.New("not an object")
			}
			*s = append(*s, fmt.Sprintf("%q", rec))
			return nil
		},
		Merge: func(s *[]string) error {
			for _, r := range *s {
				fmt.Fprintln(&out, r)
			}
			return nil
		},
	}
	err := engine.Each(in)
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed())
}

// eachObjects is what partsRecords gives, through Each.
func eachObjects(names []string) string { return eachObjectsIn(names, nil) }

// eachObjectsIn is eachObjects with stdin.
func eachObjectsIn(names []string, stdin io.Reader) string {
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stdin: stdin, Stderr: &stderr}
	err := in.Each(func(rec Record) error {
		if !bytes.HasPrefix(rec.Data, []byte("{")) {
			return in.Bad(rec, errors.New("not an object"))
		}
		fmt.Fprintf(&out, "%q\n", rec.Data)
		return nil
	})
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed())
}

// Parts gives what one pass gives: the records of every part, bad lines
// numbered from their file's start and capped per file (the cap's summary
// included), a BOM taken off the first line only, CRLF, blank lines, a
// last line without '\n', lines longer than the read buffer and lines cut
// at every place; several files, one of them twice.
func TestPartsAreEach(t *testing.T) {
	mixed := mixedLines(1, false)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	c := filepath.Join(dir, "c.jsonl")
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(a, []byte(mixed), 0o644)
	os.WriteFile(c, []byte("nope\n{\"c\":1}\n"), 0o644)
	os.WriteFile(empty, nil, 0o644)
	names := []string{a, c, empty, a}
	want := eachObjects(names)
	for _, workers := range []int{2, 3, 8} {
		for _, buf := range []int{5, 64, 1 << 16} {
			if got := partsRecords(names, workers, buf, 1<<20); got != want {
				t.Fatalf("%d workers, buffer %d:\n%s\none pass:\n%s", workers, buf, got, want)
			}
		}
	}
}

// What only one pass does the same is left to it: Each returns ErrOnePass
// and reports nothing.
func TestPartsLeaveToOnePass(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	lines := strings.Repeat("{}\nbad\n", 100)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines))
	zw.Close()
	plain := write("plain.jsonl", lines)
	for _, c := range []struct {
		what  string
		names []string
	}{
		{"stdin", []string{"-"}},
		{"gzip", []string{write("z.jsonl.gz", gz.String())}},
		{"missing", []string{plain, filepath.Join(dir, "missing")}},
		{"a NUL byte", []string{write("nul.jsonl", lines+"\x00\n"+lines)}},
		{"a line longer than MaxLine", []string{write("long.jsonl", lines+"{\""+strings.Repeat("l", 300)+"\"}\n"+lines)}},
		{"too small to cut", []string{write("one.jsonl", "{}\n")}},
	} {
		var stderr bytes.Buffer
		in := &Input{Tool: "evx", Names: c.names, Stderr: &stderr}
		engine := Parts[*int]{
			Workers: 4, MinPart: 1, BufSize: 16, MaxLine: 100,
			New:   func() *int { return new(int) },
			Add:   func(*int, []byte) error { return errors.New("bad") },
			Merge: func(*int) error { return nil },
		}
		if err := engine.Each(in); err != ErrOnePass || stderr.Len() > 0 || in.BadLines() > 0 {
			t.Errorf("%s: Each = %v, %d bad lines, stderr %q; want ErrOnePass and nothing reported", c.what, err, in.BadLines(), stderr.String())
		}
	}
	// A state that does not merge: nothing is reported either.
	var stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: []string{plain}, Stderr: &stderr}
	merged := 0
	engine := Parts[*int]{
		Workers: 4, MinPart: 1,
		New: func() *int { return new(int) },
		Add: func(*int, []byte) error { return errors.New("bad") },
		Merge: func(*int) error {
			if merged++; merged == 2 {
				return ErrOnePass
			}
			return nil
		},
	}
	if err := engine.Each(in); err != ErrOnePass || stderr.Len() > 0 {
		t.Errorf("a Merge refused: Each = %v, stderr %q; want ErrOnePass and nothing reported", err, stderr.String())
	}
}

// The meter follows the parts' reads up to the file's size and is cleared
// when Each returns, with no stand-in input read through it.
func TestPartsMeter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.jsonl")
	data := strings.Repeat("{\"a\":1}\n", 5000)
	os.WriteFile(p, []byte(data), 0o644)
	m := &countMeter{}
	in := &Input{Tool: "evx", Names: []string{p}, Stderr: io.Discard, Meter: m}
	engine := Parts[*int]{
		Workers: 3, MinPart: 1,
		New:   func() *int { return new(int) },
		Add:   func(*int, []byte) error { return nil },
		Merge: func(*int) error { return nil },
	}
	if err := engine.Each(in); err != nil {
		t.Fatal(err)
	}
	if m.read != len(data) || !m.cleared {
		t.Errorf("meter read %d bytes (want %d), cleared %v", m.read, len(data), m.cleared)
	}
}

type countMeter struct {
	read    int
	cleared bool
}

func (m *countMeter) Read(n int) { m.read += n; m.cleared = false }
func (m *countMeter) Clear()     { m.cleared = true }

// With Steal, the sending goroutine does the jobs no worker has begun
// while it waits for the oldest, and each job is done once, by one of
// them, and taken in order: here the only worker is held in the first job
// until the sending goroutine has done the third, so that it must have done
// the second and third itself, and goes on doing jobs it would otherwise
// have waited for.
func TestOrderedSteal(t *testing.T) {
	const here, worker = 1, 2
	gate, holding := make(chan struct{}), make(chan struct{})
	var done [40]atomic.Int32
	var by [40]int
	o := NewOrdered(1, 8, 0, func() int { return worker },
		func(w int, j *int) {
			if *j == 0 {
				close(holding)
				select {
				case <-gate:
				case <-time.After(10 * time.Second): // no stealing: fail, not hang
				}
			}
			if w == here && *j == 2 {
				close(gate)
			}
			done[*j].Add(1)
			by[*j] = w
		},
		func(j *int) error {
			if n := done[*j].Load(); n != 1 {
				return fmt.Errorf("job %d done %d times when taken", *j, n)
			}
			return nil
		})
	o.steal(here)
	var err error
	for i := 0; i < len(done) && err == nil; i++ {
		*o.Next() = i
		err = o.Send(1)
		if i == 0 {
			<-holding // the worker has the first job
		}
	}
	if err == nil {
		err = o.Drain()
	}
	o.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := range done {
		if n := done[i].Load(); n != 1 {
			t.Errorf("job %d done %d times", i, n)
		}
	}
	if by[0] != worker || by[1] != here || by[2] != here {
		t.Errorf("jobs 0, 1, 2 done by %d, %d, %d; want the worker, then the sending goroutine twice", by[0], by[1], by[2])
	}
}

// Ordered takes the jobs back in the order sent, never holds more than
// its bounds pending, and stops taking at take's first error.
func TestOrdered(t *testing.T) {
	var taken []int
	pendingMax := 0
	sent := 0
	o := NewOrdered(3, 4, 0, func() int { return 0 },
		func(_ int, j *[2]int) {
			// the later jobs done sooner: the order is the taker's
			time.Sleep(time.Duration(5-j[0]%5) * time.Millisecond)
			j[1] = j[0] * j[0]
		},
		func(j *[2]int) error {
			if j[1] != j[0]*j[0] {
				return fmt.Errorf("job %d not done", j[0])
			}
			pendingMax = max(pendingMax, sent-len(taken))
			taken = append(taken, j[0])
			if j[0] == 40 {
				return io.ErrShortWrite
			}
			return nil
		})
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		o.Next()[0] = i
		sent++
		err = o.Send(1)
	}
	if err == nil {
		err = o.Drain()
	}
	o.Close()
	if err != io.ErrShortWrite || len(taken) != 41 {
		t.Fatalf("stopped with %v after %d jobs, want the take's error after 41", err, len(taken))
	}
	for i, n := range taken {
		if n != i {
			t.Fatalf("taken in the order %v", taken)
		}
	}
	if pendingMax > 5 {
		t.Errorf("%d jobs pending at once, want at most 4 and the one being taken", pendingMax)
	}
}

// BenchmarkEngine is BenchmarkReader's input (64 copies) judged on
// GOMAXPROCS workers by Blocks and by Parts (-cpu 1,2 compares).
func BenchmarkEngine(b *testing.B) {
	line := `{"seq":12,"ts":1758800000.12,"run_id":"r_1","agent_id":"code-reviewer","kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls -la"}}}` + "\n"
	data := []byte(strings.Repeat(line, 640000))
	p := filepath.Join(b.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	judge := func(rec []byte) int { return bytes.Count(rec, []byte{'"'}) }
	b.Run("blocks", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			total := 0
			engine := Blocks[struct{}, []int]{
				Workers:   workers,
				NewWorker: func() struct{} { return struct{}{} },
				Work: func(_ struct{}, blk *Block, v *[]int) {
					*v = (*v)[:0]
					blk.Frame(func(_ int, rec []byte) { *v = append(*v, judge(rec)) })
				},
				Take: func(v *[]int, i int, _ Record) error { total += (*v)[i]; return nil },
			}
			engine.Each(&Input{Tool: "b", Names: []string{p}, Stderr: io.Discard})
		}
	})
	b.Run("parts", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			engine := Parts[*int]{
				Workers: max(workers, 2), MinPart: 1 << 20,
				New:   func() *int { return new(int) },
				Add:   func(n *int, rec []byte) error { *n += judge(rec); return nil },
				Merge: func(*int) error { return nil },
			}
			engine.Each(&Input{Tool: "b", Names: []string{p}, Stderr: io.Discard})
		}
	})
}

// mixedLines is a log of what framing lines must get right: a BOM on the
// first line and on later ones (kept there), CRLF, blank lines, bad
// lines, lines of long×i bytes, a NUL byte in a string when nul, and a
// last line without '\n'.
func mixedLines(long int, nul bool) string {
	var b strings.Builder
	b.WriteString("\ufeff{\"first\":1}\r\n")
	for i := range 300 {
		switch {
		case i%7 == 0:
			fmt.Fprintf(&b, "bad %d\n", i)
		case i%7 == 1:
			b.WriteString(" \t\n\n")
		case i%7 == 2:
			fmt.Fprintf(&b, "{\"long\":%q}\n", strings.Repeat("x", long*i))
		case i%7 == 3:
			fmt.Fprintf(&b, "\ufeff{\"n\":%d}\n", i) // a BOM past the first line is kept
		case i%7 == 4 && nul:
			fmt.Fprintf(&b, "{\"nul\":\"%d\x00\"}\n", i)
		default:
			fmt.Fprintf(&b, "{\"n\":%d}\r\n", i)
		}
	}
	b.WriteString("{\"last\":true}")
	return b.String()
}
