// Command mailbox measures the mailbox channel on the filesystem store:
// delivery latency between two processes, throughput with and without
// fsync beside the raw cost of write+fsync+link on the same disk, and the
// drain of a large backlog (time to first delivery, rate, peak memory).
// The nanobot mode puts switchboard beside nanobot's own algorithm and the
// raw file operations in one run: nanobot's send, poll and mark_processed
// (nanobot_algo.py, run with python3) write a tree of waiting messages,
// and a copy of it is drained by each of nanobot's algorithm, the
// switchboard binary's recv with fsync on and off, and plain renames with
// and without folder fsyncs; the tables give msg/s and the ratios.
//
// Usage:
//
//	go run ./bench/mailbox -mode latency|throughput|backlog|all [-n N] [-root DIR]
//	go run ./bench/mailbox -mode nanobot [-n 20000] [-rounds R] [-json FILE]
//
// The receiver is always a second process: the harness runs its own binary
// again with the hidden -child flag. That process runs the real mailbox
// channel (mailbox.New and Start on a bus, pollInterval 5 s, so fsnotify
// must carry every message) and times each InboundMessage as it comes off
// the bus. The sender writes the wall-clock time of the send into the
// message (a data part), so the receiver computes the latency on receipt;
// both processes read the same clock.
//
// Everything happens in a fresh folder under -root (default the system's
// temporary folder), removed at the end, also on Ctrl-C. docs/
// mailbox-benchmarks.md explains the figures and gives results.
package main
