// Package archivetest makes evtools archives (pkg/archive) for tests and
// benchmarks of the tools that read them: a host folder with its
// manifest and zstd segments of the events given, as evimport --archive
// lays one out, without evimport. The mkarchive command of the golden
// scripts (internal/devtools/scripttest) and internal/devtools/cmd/mkarchive stand on it.
package archivetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/archive"
	"github.com/evtools/evtools/pkg/event"
	"github.com/klauspost/compress/zstd"
)

// Segment is a segment to write: the events of a day, as JSON Lines.
type Segment struct {
	Day    string // YYYY-MM-DD
	Events []byte
}

// Host is the host folder to write.
type Host struct {
	Name       string // the machine's name: each event's host member
	ID         string
	Generation int64
}

// Write writes the host folder dir (made if missing): each segment
// compressed with zstd under a name of its own, then the manifest that
// lists them in order, replaced as a sync replaces it (a temporary file
// renamed). Events are written as they are: WithHost adds the host member.
func Write(dir string, h Host, segs []Segment) (*archive.Manifest, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	m := &archive.Manifest{Version: archive.Version, Host: h.Name, ID: h.ID, Generation: h.Generation}
	return m, write(dir, m, segs)
}

// Add adds segs after the segments of the host folder dir, in a
// generation one higher, as a sync that added events: the segments
// listed stay as they are.
func Add(dir string, segs []Segment) (*archive.Manifest, error) {
	m, err := archive.Load(dir)
	if err != nil {
		return nil, err
	}
	m.Generation++
	return m, write(dir, m, segs)
}

// write writes segs and the manifest m that lists them after its own.
func write(dir string, m *archive.Manifest, segs []Segment) error {
	for i, s := range segs {
		name := fmt.Sprintf("%s.g%d.%d.jsonl.zst", s.Day, m.Generation, i)
		n, err := writeSegment(filepath.Join(dir, name), s.Events)
		if err != nil {
			return err
		}
		m.Segments = append(m.Segments, archive.Segment{Name: name, Day: s.Day, Events: lines(s.Events), Bytes: n})
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, archive.ManifestName+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, archive.ManifestName))
}

// writeSegment writes events zstd-compressed to path; its size.
func writeSegment(path string, events []byte) (int64, error) {
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return 0, err
	}
	if _, err := zw.Write(events); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(b.Len()), os.WriteFile(path, b.Bytes(), 0o644)
}

func lines(data []byte) int64 {
	n := int64(bytes.Count(data, []byte("\n")))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// WithHost returns the events with a first member "host": name added to
// each line that is a JSON object, as evimport --host writes it; other
// lines (blank, bad) are kept as they are.
func WithHost(events []byte, name string) []byte {
	member := append(append([]byte(`{"host":`), jsontext.AppendString(nil, name)...), ',')
	var out []byte
	for line := range bytes.Lines(events) {
		body := bytes.TrimLeft(line, " \t")
		switch {
		case bytes.HasPrefix(body, []byte(`{"host"`)), !bytes.HasPrefix(body, []byte("{")):
			out = append(out, line...)
		case bytes.HasPrefix(bytes.TrimLeft(body[1:], " \t\r\n"), []byte("}")):
			out = append(append(out, member[:len(member)-1]...), bytes.TrimLeft(body[1:], " \t")...)
		default:
			out = append(append(out, member...), body[1:]...)
		}
	}
	return out
}

// ByDay reads events and cuts them into segments as a sync does: each
// run's events go to the day (UTC) of the run's first event, an event
// without a run to the day of its own time, an event without a time to
// the day of the event before it; the days in order.
func ByDay(r io.Reader) ([]Segment, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	days := map[string]*bytes.Buffer{}
	runDay := map[string]string{}
	var order []string
	last := "1970-01-01"
	var ev event.Envelope
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			day := last
			if ev.Scan(line) == nil {
				if us, known, _ := ev.Micros(); known {
					day = time.UnixMicro(us).UTC().Format(time.DateOnly)
				}
				if id := string(ev.RunID); id != "" && id != "null" {
					if d, ok := runDay[id]; ok {
						day = d
					} else {
						runDay[id] = day
					}
				}
			}
			last = day
			b := days[day]
			if b == nil {
				b = &bytes.Buffer{}
				days[day] = b
				order = append(order, day)
			}
			b.Write(line)
			if line[len(line)-1] != '\n' {
				b.WriteByte('\n')
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(order)
	segs := make([]Segment, 0, len(order))
	for _, d := range order {
		segs = append(segs, Segment{Day: d, Events: days[d].Bytes()})
	}
	return segs, nil
}
