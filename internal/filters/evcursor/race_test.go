//go:build race

package evcursor_test

// raceEnabled is set when the tests run under the race detector, which
// makes every child process of a test ten times slower.
const raceEnabled = true
