package evsum

import (
	"runtime"

	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// evsum on several cores: jsonl.Parts cuts a regular file at line
// boundaries into as many parts as there are cores, summarises the parts
// at once, each into a state of its own, and the states are merged in
// input order, which is what --partial and --merge do across processes,
// and gives one pass's summary byte for byte (the merge pairs a glasspane
// turn cut by a part's end when the parts come in order). A state per part,
// not verdicts per line, since an event's meaning depends on the run's
// events before it.
//
// What one pass says on stderr is said the same (jsonl.Parts reports the
// bad lines once all parts merged, numbered from each file's start).
// Whatever one pass would do differently keeps one pass: what jsonl.Parts
// leaves to one pass, --strict (which stops at the first bad line), --live,
// and sums that would go out of range only when the parts are merged: then
// the parts are dropped, nothing having been written, and the input is
// read again in one pass.

// minPart is the smallest part worth a core of its own; tests lower it.
var minPart int64 = jsonl.DefaultMinPart

// cores is how many parts a file is cut into at most; tests raise it.
var cores = func() int { return runtime.GOMAXPROCS(0) }

// partBuf is the size of a part's read buffer; tests lower it.
var partBuf = jsonl.DefaultBlockSize

// maxPartLine is the longest line the parts read: a longer one sends the
// input to one pass (each part would hold its own copy of a run_id that
// long, where one pass holds one).
const maxPartLine = jsonl.DefaultMaxLine

// parallelState is the summary of the inputs read on several cores, or nil
// when they are to be read in one pass: --strict stops at the first bad
// line, which only one pass finds first; groups by tool name updates by
// the start of their call, which may be in an earlier part.
func parallelState(opts *options, in *jsonl.Input, o summary.Options, order summary.Order) *summary.State {
	if opts.Strict || !summary.New(o).Splittable() {
		return nil
	}
	var st *summary.State
	parts := jsonl.Parts[*summary.State]{
		Workers: cores(), MinPart: minPart, BufSize: partBuf, MaxLine: maxPartLine,
		New: func() *summary.State {
			s := summary.New(o)
			s.SetOrder(order)
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
	}
	if parts.Each(in) != nil {
		return nil
	}
	return st
}
