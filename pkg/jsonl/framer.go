package jsonl

import "bytes"

// The framer: every way of reading in this package, and every writer that
// takes lines (LineJoiner), cuts bytes into lines with cutLine and frames
// a line into its record with record, so that they all agree.

var bom = []byte{0xef, 0xbb, 0xbf}

// EachLine calls fn with each line of data, its '\n' included (but for a
// last line that data ends without one), until fn returns false, and
// returns how many lines it handed over: the lines as they are, for a
// writer that takes lines cut anywhere (LineJoiner).
func EachLine(data []byte, fn func(line []byte) bool) int {
	return frame(data, false, true, func(_, _ int, line []byte, _ bool) bool { return fn(line) }, nil, nil)
}

// Lines calls fn with every record of data, the whole of one input (as
// ReadFile reads it), by the rules Each frames records by, with its line
// (from 1, blank lines counted); nul reports a record holding a NUL byte,
// which Each reports as a bad line (ErrNUL) instead of handing it over.
// It stops when fn returns false.
func Lines(data []byte, fn func(line int, rec []byte, nul bool) bool) {
	frame(data, true, false, func(line, _ int, rec []byte, nul bool) bool { return fn(line, rec, nul) }, nil, nil)
}

// frame frames the lines of data as Lines does (unless raw: each line is
// then handed as it is, blank or not), first saying whether data starts
// an input (its BOM dropped), and calls fn with each record, its line
// (from 1 in data) and where its line ends in data, until fn returns
// false. It returns how many lines it passed, blank ones included. Most
// data holds no NUL byte at all: one look at the whole spares each record
// its own.
// Given a block, it notes its records (Block.Frame) and hands each to
// each instead of fn: one call a record less on the workers' hot loop.
func frame(data []byte, first, raw bool, fn func(line, end int, rec []byte, nul bool) bool, b *Block, each func(i int, rec []byte)) int {
	clean := raw || !binary(data)
	n, end := 0, 0
	for rest := data; len(rest) > 0; {
		var rec []byte
		rec, rest = cutLine(rest)
		n++
		end += len(rec)
		if !raw {
			from, to, blank := record(rec, first && n == 1)
			if blank {
				continue
			}
			rec = rec[from:to]
		}
		nul := !clean && binary(rec)
		if b != nil {
			b.note(n, rec, nul, each)
		} else if !fn(n, end, rec, nul) {
			break
		}
	}
	return n
}

// cutLine cuts the first line off data: line with its '\n' (all of data
// when it holds none), and the rest after it. It is where every reading
// mode and every writer that takes lines finds where a line ends.
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i+1], data[i+1:]
	}
	return data, nil
}

// WholeLines is data up to the end of its last line: the lines cutLine
// would cut whole, where a reader of a file being written stops.
func WholeLines(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// record applies the framing rules to one line as read (its '\n'
// included, unless it ends the input): the record is line[from:to],
// without the UTF-8 BOM that may start the input's first line (first),
// the '\n' and a '\r' before it. blank reports a record of nothing but
// spaces and tabs, which is skipped (its line still counts). The reader
// and frame frame every line here, so the two agree.
func record(line []byte, first bool) (from, to int, blank bool) {
	if first && bytes.HasPrefix(line, bom) {
		from = len(bom)
	}
	to = len(line)
	if to > from && line[to-1] == '\n' {
		to--
	}
	if to > from && line[to-1] == '\r' {
		to--
	}
	return from, to, isBlank(line[from:to])
}

// binary reports whether a record holds a NUL byte, which no line of
// JSON text does: a bad line (ErrNUL).
func binary(rec []byte) bool { return bytes.IndexByte(rec, 0) >= 0 }

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
