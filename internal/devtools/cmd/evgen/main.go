// Command evgen writes a generated corpus for benchmarks and cross-checks:
//
//	go run ./internal/devtools/cmd/evgen -kind zot|envelope -size 100M [-seed N] [-o FILE]
//	go run ./internal/devtools/cmd/evgen -kind claude|codex|pi|gemini -size 100M [-seed N] -o HOME
//
// The second form writes the session logs of another agent under the folder
// HOME, laid out as that agent lays them out in a user's home (what
// evimport and ccusage read). The same kind, size and seed always give the
// same bytes.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/devtools/corpus"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("kind", "zot", "corpus kind: zot, envelope, or an agent's session logs: "+strings.Join(corpus.AgentKinds, ", ")+" (-o names the home folder to write them under)")
	size := fs.String("size", "1M", "minimum size: bytes, or with a K, M or G suffix (powers of 1024)")
	seed := fs.Uint64("seed", 1, "generator seed; the same seed gives the same bytes")
	outPath := fs.String("o", "", "output file (default stdout)")
	sessions := fs.Int("sessions", 0, "for an agent's session logs: this many sessions, whatever their size (opencode's store of 1,000 sessions)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "evgen: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintf(stderr, "evgen: -size: %v\n", err)
		return 2
	}
	if slices.Contains(corpus.AgentKinds, *kind) {
		if *outPath == "" || *outPath == "-" {
			fmt.Fprintf(stderr, "evgen: -kind %s writes a folder of session files: -o names it\n", *kind)
			return 2
		}
		write := func() error { return corpus.Agents(*outPath, *kind, n, *seed) }
		if *sessions > 0 {
			write = func() error { return corpus.AgentSessions(*outPath, *kind, *sessions, *seed) }
		}
		if err := write(); err != nil {
			fmt.Fprintf(stderr, "evgen: %v\n", err)
			return 1
		}
		return 0
	}
	var gen func(io.Writer, int64, uint64) error
	switch *kind {
	case "zot":
		gen = corpus.Zot
	case "envelope":
		gen = corpus.Envelope
	default:
		fmt.Fprintf(stderr, "evgen: -kind: %q is none of zot, envelope, %s\n", *kind, strings.Join(corpus.AgentKinds, ", "))
		return 2
	}
	w := stdout
	var f *os.File
	if *outPath != "" && *outPath != "-" {
		if f, err = os.Create(*outPath); err != nil {
			fmt.Fprintf(stderr, "evgen: %v\n", err)
			return 1
		}
		w = f
	}
	// the generator writes large blocks already; bufio only evens them out
	bw := bufio.NewWriterSize(w, 1<<20)
	err = gen(bw, n, *seed)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "evgen: %v\n", err)
		return 1
	}
	return 0
}

// parseSize reads 100M, 1G, 64K or a plain number of bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "k"):
		mult = 1 << 10
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult = 1 << 20
	case strings.HasSuffix(s, "G"), strings.HasSuffix(s, "g"):
		mult = 1 << 30
	}
	num := s
	if mult > 1 {
		num = s[:len(s)-1]
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mult {
		return 0, errors.New("want a size like 64K, 100M or 1G, got " + strconv.Quote(s))
	}
	return v * mult, nil
}
