package expr

import "github.com/evtools/evtools/pkg/jsonscan"

// matchGojq is Match without the fast path or partial decoding: the
// reference they are tested against.
func (f *Filter) matchGojq(line []byte) (bool, error) {
	if err := jsonscan.Check(line); err != nil {
		return false, &InputError{err}
	}
	return f.slow(Decode(line))
}
