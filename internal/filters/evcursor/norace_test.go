//go:build !race

package evcursor_test

const raceEnabled = false
