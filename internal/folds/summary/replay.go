package summary

import (
	"math"

	"github.com/evtools/evtools/internal/folds/record"
)

// Replay is a report made once, to be written again without its state:
// evsum keeps the report of an archive's segments, which needs every run
// to be made, to answer the same question over the same segments in
// milliseconds. Its records are those EachRecord gave, in order.
type Replay struct {
	Records  []record.Record
	Has      [record.NumCounters]bool // State.Has of each counter
	Problems bool                     // State.HasProblems
}

// Replay makes s's report (as SetRunning and SetOrder set it up) into a
// Replay, holding every record at once.
func (s *State) Replay() *Replay {
	r := &Replay{Records: s.Report(), Problems: s.HasProblems()}
	for c := range r.Has {
		r.Has[c] = s.Has(record.Counter(c))
	}
	return r
}

// Replayed is a state whose report is r, made with options opt: it
// writes r's records (EachRecord, EachEncoded) and says what r says of
// its counters and problems, and is nothing else: no event may be added
// to it, nor may it be merged.
func Replayed(opt Options, r *Replay) *State {
	s := New(opt)
	s.replay = r
	return s
}

// replayRecords hands the records of a Replayed state to write, encoded
// first when the writer encodes.
func (s *State) replayRecords(encode func([]byte, *record.Record) []byte, write func(*record.Record, []byte) error) error {
	rp := &reporting{encode: encode, write: write}
	for i := range s.replay.Records {
		if err := rp.emit(&s.replay.Records[i]); err != nil {
			return err
		}
	}
	return nil
}

// RunningSpan is the span of the cutoffs of SetRunning that give s the
// report its cutoff now gives: a run without its end is running or not
// by whether its last event is at or after the cutoff, so the report is
// the same while the cutoff stays in (lo, hi], that is until it passes
// the last event of a run now running. Without a cutoff it is every time.
func (s *State) RunningSpan() (lo, hi int64) {
	lo, hi = math.MinInt64, math.MaxInt64
	if !s.running.on {
		return lo, hi
	}
	var room run
	for _, id := range s.runIDs() {
		r := s.peekRunIn(id, &room)
		if !r.hasTS || r.n[rFinished] != 0 || r.glassOrEmpty().agentEnd {
			continue
		}
		if r.maxTS >= s.running.from {
			hi = min(hi, r.maxTS)
		} else {
			lo = max(lo, r.maxTS)
		}
	}
	return lo, hi
}

// Groups is the number of groups the state holds.
func (s *State) Groups() int { return len(s.groups) + len(s.coldGroups) }
