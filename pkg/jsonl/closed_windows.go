package jsonl

// pipeGone are the errors besides EPIPE that say the reader of the output
// went away: Windows has no EPIPE.
var pipeGone = windowsPipeGone
