// Package jsonl is the streaming core every evtools filter stands on: it
// opens inputs (files, stdin, gzip and zstd by their magic bytes), frames
// them into records, reports bad records with their file and line, and
// writes buffered output that is flushed whenever the tool is about to wait
// for input.
//
// A folder named as an input is an archive (pkg/archive): it stands for
// the segments of every host in it, in order, as if they were named one
// after another (Expand, Input.Entries). That is the one place names
// become inputs, so every way of reading below reads archives.
//
// Framing rules:
//   - records end at '\n' only; a trailing '\r' is dropped;
//   - U+2028 and U+2029 are ordinary bytes and never end a record;
//   - lines have no length limit;
//   - blank lines (empty or only spaces and tabs) are skipped but counted;
//   - a last line without '\n' is a record;
//   - a UTF-8 byte order mark at the start of a file is ignored.
//
// # Which way to read
//
// Every way below gives the same records, line numbers and bad-line
// reports, as Input.Each would: under them is one reader, one framer
// (one place finds where a line ends), one test of whether an input is
// compressed, and one worker engine, Ordered.
//
//   - One by one: Input.Each. The default, and the only way for a live
//     stream (a pipe a producer still writes, a terminal): each record is
//     handed over as soon as its line is read, the output flushed before
//     every read that may wait. With Growing it holds back a last line a
//     producer is still writing.
//   - Ordered in parallel: Blocks, when a verdict on a record does not
//     depend on the records before it (a filter, a validating scan):
//     the reading goroutine reads blocks of whole lines, workers frame
//     and judge them (Block.Frame), and the verdicts come back in input
//     order, where the tool writes its output. For stored files (see
//     RegularFiles): nothing live waits on the output.
//   - In parallel with a merge: Parts, when records depend on the ones
//     before (a summary of runs) but the states of consecutive parts
//     merge: each worker reads a contiguous part of a regular file into a
//     state of its own; a pipe, stdin or a compressed file is read in
//     chunks summarised on the workers (Serial).
//   - Following: Follower, for a file still being written, as tail -F
//     follows it: each Read hands over the lines ended since the last, a
//     half-written last line waiting for its '\n'; a file truncated,
//     rewritten or replaced under its name is read again from its start,
//     and a compressed one whole, once it decompresses whole. What it
//     knows between two reads (FollowState) is plain data, to be saved.
//   - A whole file: ReadFile (ReadAll for an open input), then Lines, for
//     a tool that reads whole files on goroutines of its own (evimport
//     converts a session's files together); Head for a file's first
//     lines only. They never touch the output guard.
//
// Ordered itself runs any jobs on workers and takes them back in the
// order sent, for work that is no reading of lines (evimport's scan and
// conversion of files).
//
// # Writing
//
// Writer is a tool's buffered output. A writer that takes JSON Lines
// written in pieces (a view: the pretty view, the transcript, redaction)
// gets its lines back whole from a LineJoiner.
package jsonl
