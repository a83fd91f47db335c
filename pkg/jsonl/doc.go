// Package jsonl is the streaming core every evtools filter stands on: it
// opens inputs (files, stdin, gzip and zstd by their magic bytes), frames
// them into records, reports bad records with their file and line, and
// writes buffered output that is flushed whenever the tool is about to wait
// for input.
//
// Framing rules:
//   - records end at '\n' only; a trailing '\r' is dropped;
//   - U+2028 and U+2029 are ordinary bytes and never end a record;
//   - lines have no length limit;
//   - blank lines (empty or only spaces and tabs) are skipped but counted;
//   - a last line without '\n' is a record;
//   - a UTF-8 byte order mark at the start of a file is ignored.
//
// Input.Each hands a tool the records one by one. Input.EachBlock hands it
// blocks of whole lines instead, for a tool that frames and handles them
// on several goroutines (Block.Frame) and takes them back in input order
// (Input.TakeBlock): the same rules, records, line numbers and reports.
package jsonl
