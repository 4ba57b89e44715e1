// Package audit is the mailbox's append-only audit log: one JSON object a
// line in <root>/manifest.jsonl, one line for each thing that happens to a
// message (sent, claimed, delivered, processed, refused, quarantined,
// swept, ...). Any number of processes append to the same log at once;
// every line is written whole by one write(2) under an exclusive flock, so
// lines never tear or interleave. The log is rotated by size
// (manifest.jsonl.1 is the newest rotated file) and the oldest files beyond
// a count are deleted.
//
// Read walks the log oldest first, with a Filter; a line that cannot be
// decoded (the last line of a crashed writer, text from elsewhere) is
// skipped and counted, never an error.
package audit
