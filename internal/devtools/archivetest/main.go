package archivetest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/event"
)

// Main is the mkarchive command: it writes a host folder of the events
// it reads, for golden scripts and benchmarks.
//
//	mkarchive [-host NAME] [-id ID] [-gen N] [-day] [-add] DIR [FILE...]
//
// Each FILE is a segment, in order, of the day of its first event (-day:
// the events of all of them, or of stdin, cut by day as a sync cuts
// them). Each event gets the member "host": NAME. With -add the segments
// come after those DIR's manifest lists, which stay as they are, in a
// generation one higher: a sync that added events.
func Main(args []string, stdio cli.Stdio) int {
	fs := flag.NewFlagSet("mkarchive", flag.ContinueOnError)
	fs.SetOutput(stdio.Err)
	host := fs.String("host", "laptop", "the machine's name, written in each event")
	id := fs.String("id", "", "the host's id (default NAME-1)")
	gen := fs.Int64("gen", 1, "the manifest's generation")
	byDay := fs.Bool("day", false, "cut the events into a segment per day of each run's first event")
	add := fs.Bool("add", false, "add the segments to the host folder's")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(stdio.Err, "mkarchive: name the host folder to write")
		return 2
	}
	if *id == "" {
		*id = *host + "-1"
	}
	segs, err := segments(fs.Args()[1:], *byDay, stdio.In)
	if err == nil {
		for i := range segs {
			segs[i].Events = WithHost(segs[i].Events, *host)
		}
		if *add {
			_, err = Add(fs.Arg(0), segs)
		} else {
			_, err = Write(fs.Arg(0), Host{Name: *host, ID: *id, Generation: *gen}, segs)
		}
	}
	if err != nil {
		fmt.Fprintf(stdio.Err, "mkarchive: %v\n", err)
		return 1
	}
	return 0
}

// segments reads the files named (none: stdin) into segments: one per
// file, or cut by day.
func segments(files []string, byDay bool, stdin io.Reader) ([]Segment, error) {
	var all []byte
	var segs []Segment
	read := func(data []byte) {
		all = append(all, data...)
		segs = append(segs, Segment{Day: firstDay(data), Events: data})
	}
	if len(files) == 0 {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		read(data)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		read(data)
	}
	if byDay {
		return ByDay(bytes.NewReader(all))
	}
	return segs, nil
}

// firstDay is the UTC day of the first event with a time in data.
func firstDay(data []byte) string {
	var ev event.Envelope
	for line := range bytes.Lines(data) {
		if ev.Scan(line) != nil {
			continue
		}
		if us, known, _ := ev.Micros(); known {
			return time.UnixMicro(us).UTC().Format(time.DateOnly)
		}
	}
	return "1970-01-01"
}
