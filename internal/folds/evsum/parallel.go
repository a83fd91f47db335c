package evsum

import (
	"runtime"
	"sync/atomic"

	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// evsum on several cores: jsonl.Parts cuts a regular file at line
// boundaries into as many parts as there are cores, summarises the parts
// at once, each into a state of its own, and the states are merged in
// input order, which is what --partial and --merge do across processes,
// and gives one pass's summary byte for byte (the merge pairs a glasspane
// turn cut by a part's end when the parts come in order). A state per part,
// not verdicts per line, since an event's meaning depends on the run's
// events before it. Stdin, a pipe, a gzip or zstd file, small files, or a
// mix of them with files, which cannot be cut beforehand, are read in
// chunks of whole lines instead, each summarised into a state of its own
// on a core and merged in input order as it comes (jsonl.Parts.Serial).
//
// What one pass says on stderr is said the same (jsonl.Parts reports the
// bad lines numbered from each file's start, in order). Whatever one pass
// would do differently keeps one pass: --strict (which stops at the first
// bad line), --live, --by tool, and for a file cut beforehand what
// jsonl.Parts leaves to one pass and a merge refused (sums that would go
// out of range only when merged, a call id reused; see State.Fits): then
// the parts are dropped, nothing having been written, and the file is
// read again in one pass. A stream cannot be read again: a chunk whose
// merge is refused, and a line of more than a MiB, are added to the
// merged state line by line, as one pass adds them, and the chunks after
// them merge into it as before.

// minPart is the smallest part worth a core of its own; tests lower it.
var minPart int64 = jsonl.DefaultMinPart

// cores is how many parts a file is cut into at most; tests raise it.
var cores = func() int { return runtime.GOMAXPROCS(0) }

// chunkSize is the size of the chunks a stream is read in; tests lower it.
var chunkSize = jsonl.DefaultChunkSize

// partStates counts the states made for parts and chunks: tests see by it
// that an input was read on several cores.
var partStates atomic.Int64

// partBuf is the size of a part's read buffer; tests lower it.
var partBuf = jsonl.DefaultBlockSize

// maxPartLine is the longest line the parts read: a longer one sends the
// input to one pass (each part would hold its own copy of a run_id that
// long, where one pass holds one).
const maxPartLine = jsonl.DefaultMaxLine

// parallelState is the summary of the inputs read on several cores, or
// jsonl.ErrOnePass when they are to be read in one pass (nothing read
// then): --strict stops at the first bad line, which only one pass finds
// first; groups by tool name updates by the start of their call, which
// may be in an earlier part. Other errors are those of a pass over the
// input (a signal, an output closed).
func parallelState(opts *options, in *jsonl.Input, o summary.Options, order summary.Order) (*summary.State, error) {
	if opts.Strict || !summary.New(o).Splittable() {
		return nil, jsonl.ErrOnePass
	}
	newState := func() *summary.State {
		s := summary.New(o)
		s.SetOrder(order)
		return s
	}
	var st *summary.State
	parts := jsonl.Parts[*summary.State]{
		Workers: cores(), MinPart: minPart, BufSize: partBuf, MaxLine: maxPartLine, ChunkSize: chunkSize,
		New: func() *summary.State {
			partStates.Add(1)
			s := newState()
			s.AsPart()
			return s
		},
		Add: (*summary.State).Add,
		Merge: func(part *summary.State) error {
			switch {
			case st == nil:
				st = part
				st.AsWhole()
			case !st.Fits(part):
				return jsonl.ErrOnePass
			default:
				st.Merge(part)
			}
			return nil
		},
		// A stream goes on in one pass where the parts stop.
		Serial: func(rec []byte) error {
			if st == nil {
				st = newState()
			}
			return st.Add(rec)
		},
	}
	if err := parts.Each(in); err != nil {
		return nil, err
	}
	if st == nil { // no record
		st = newState()
	}
	return st, nil
}
