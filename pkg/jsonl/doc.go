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
// Every way gives the records, line numbers and bad-line reports Each
// gives, over one reader, one framer, one compression check and one
// worker engine (Ordered, which evimport also runs its files on).
//
//   - One by one: Input.Each. The default, and the way for a live stream
//     (a pipe a producer still writes, a terminal): a record is handed
//     over once its line is read, the output flushed before a read waits.
//   - Ordered in parallel: Blocks, for stored files (RegularFiles) when a
//     verdict on a record does not depend on the records before it (a
//     filter): workers frame and judge blocks of whole lines (Block.Frame)
//     and the verdicts come back in input order.
//   - In parallel with a merge: Parts, when records depend on the ones
//     before (a summary of runs) but states of consecutive parts merge:
//     a regular file is cut into parts read by the workers, a stream into
//     chunks (Serial).
//   - Following: Follower, for a file still being written, as tail -F
//     follows it (growth, truncation, rotation, a half-written last line);
//     its FollowState is plain data, to be saved between runs.
//   - A whole file: ReadFile or ReadAll, then Lines, on goroutines of the
//     tool's own (they never touch the output guard); a WholeReader for a
//     worker that reads many files whole and keeps its memory from one to
//     the next; Head for a file's first lines only.
//
// Writer is a tool's buffered output; a view that takes JSON Lines
// written in pieces gets its lines back whole from a LineJoiner, and
// LineWriter makes an io.Writer of a function that takes whole lines.
package jsonl
