package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

var bom = []byte{0xef, 0xbb, 0xbf}

// Reader splits a Source into records.
type Reader struct {
	src  *Source
	line int
	long []byte // holds a record longer than the read buffer
	err  error

	unterminated bool // the record Next returned last had no '\n'
}

// NewReader returns a Reader over src.
func NewReader(src *Source) *Reader { return &Reader{src: src} }

// Next returns the next non-blank record without its line ending, or false
// at the end of input or on a read error (see Err). The slice is valid only
// until the next call.
func (r *Reader) Next() ([]byte, bool) {
	if r.err != nil {
		return nil, false
	}
	for {
		rec, err := r.readLine()
		if err != nil && (err != io.EOF || len(rec) == 0) {
			if err != io.EOF {
				r.err = err
			} else {
				r.err = io.EOF
			}
			return nil, false
		}
		r.line++
		r.unterminated = err == io.EOF
		if r.line == 1 {
			rec = bytes.TrimPrefix(rec, bom)
		}
		if n := len(rec); n > 0 && rec[n-1] == '\n' {
			rec = rec[:n-1]
		}
		if n := len(rec); n > 0 && rec[n-1] == '\r' {
			rec = rec[:n-1]
		}
		if isBlank(rec) {
			if err == io.EOF {
				r.err = io.EOF
				return nil, false
			}
			continue
		}
		return rec, true
	}
}

// readLine returns one line including its '\n', or the unterminated tail
// with io.EOF.
func (r *Reader) readLine() ([]byte, error) {
	b, err := r.src.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	r.long = append(r.long[:0], b...)
	for {
		b, err = r.src.br.ReadSlice('\n')
		r.long = append(r.long, b...)
		if err != bufio.ErrBufferFull {
			// equivalent mutant: at exactly 4*readBufSize, or with
			// 4/readBufSize, only whether a buffer is reused changes.
			if cap(r.long) > 4*readBufSize && err == nil {
				// Give a huge buffer back once the line is handed out.
				out := r.long
				r.long = nil
				return out, nil
			}
			return r.long, err
		}
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// Unterminated reports whether the record Next returned last ended at the
// end of input without a '\n'.
func (r *Reader) Unterminated() bool { return r.unterminated }

// Line is the line number of the record Next returned last (1-based,
// counting blank lines).
func (r *Reader) Line() int { return r.line }

// Err is the read error that ended the records, or nil at a clean end.
func (r *Reader) Err() error {
	if errors.Is(r.err, io.EOF) {
		return nil
	}
	return r.err
}
