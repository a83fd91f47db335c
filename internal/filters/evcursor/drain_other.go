//go:build !linux

package evcursor

// drain cannot tell, outside Linux, what the reader of a pipe has read:
// see drainUnknown.
var drain = drainUnknown

// drainSocket cannot tell either: see drainUnknown.
var drainSocket = drainUnknown
