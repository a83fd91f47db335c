package picheck

import (
	"math/rand/v2"
	"strings"
)

// Mutate returns src, a zot stream, with one to five of its lines
// dropped, duplicated (in place, earlier or later), swapped (with the next
// or any other), cut short, or the stream cut at a line: what a lossy
// relay, a replay joined twice or a crash makes of zot's stream. The
// same source of randomness gives the same streams.
func Mutate(r *rand.Rand, src []byte) []byte {
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for range 1 + r.IntN(5) {
		n := len(lines)
		if n == 0 {
			break
		}
		i, j := r.IntN(n), r.IntN(n)
		switch r.IntN(7) {
		case 0: // drop
			lines = append(lines[:i], lines[i+1:]...)
		case 1: // duplicate in place
			lines = append(lines[:i+1], lines[i:]...)
		case 2: // duplicate later or earlier
			lines = append(lines[:j], append([]string{lines[i]}, lines[j:]...)...)
		case 3: // swap neighbours
			if i+1 < n {
				lines[i], lines[i+1] = lines[i+1], lines[i]
			}
		case 4: // swap any two
			lines[i], lines[j] = lines[j], lines[i]
		case 5: // cut the stream
			lines = lines[:i]
		case 6: // cut a line short
			lines[i] = lines[i][:r.IntN(len(lines[i])+1)]
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}
