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
// Input.Each hands a tool the records one by one. Reading on several
// cores is one engine, with the same rules, records, line numbers and
// reports as Each, in one of two ways a tool chooses by how its work
// splits:
//   - Blocks: when a verdict on a record does not depend on the records
//     before it (a filter, a validating scan), the reading goroutine reads
//     blocks of whole lines (Input.readBlocks), workers frame and judge
//     them (Block.Frame), and the verdicts come back in input order
//     (Input.takeBlock), where the tool writes its output;
//   - Parts: when records depend on the ones before (a summary of runs)
//     but states of consecutive parts merge, each worker reads a
//     contiguous part of a regular file into a state of its own, and the
//     states are merged in input order, the bad lines reported after. A
//     pipe, stdin or a compressed file is read as Blocks reads it, each
//     chunk summarised into a state of its own on a worker and merged in
//     input order; what a chunk's state cannot give as one pass would is
//     added to the merged state record by record (Parts.Serial).
//
// Both stand on Ordered, a pool of goroutines whose jobs are taken back in
// the order sent, with a free list and a bound on the work ahead; the
// engine owns the lines of many MiB, the numbering and cap of bad lines
// and the progress meter.
//
// A file still being written is read a third way, as tail -F follows
// it (Follower): each Read hands over the lines ended since the last
// one, by the same framing rules and bad-line reports, a half-written
// last line waiting for its '\n'; a file truncated, rewritten or
// replaced under its name is read again from its start, and a
// compressed one whole, once it decompresses whole. What it knows
// between two reads (FollowState: the position, the file's identity,
// a fingerprint of what was read) is plain data, to be saved and given
// back in a later run.
package jsonl
