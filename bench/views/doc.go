// Command views measures the read-only views of the command line
// (switchboard inbox, thread, pending and agents) on a large mailbox
// tree: wall time and peak resident memory of each command, for one or
// more switchboard binaries side by side on the same tree in the same
// run.
//
// Usage:
//
//	go run ./bench/views [-n 100000] [-root DIR] [-runs 5] [-bin NAME=PATH ...]
//
// It writes a tree of -n messages in a fresh folder under -root (half
// waiting in one agent's inbox, half handled conversations between ten
// agents: requests, replies, tasks and their updates, some unanswered),
// then runs every view with each binary: once cold for the view's own
// caches (the first run after the tree was written; each binary gets its
// own user cache folder, XDG_CACHE_HOME, so that binaries with different
// index formats do not rebuild each other's), then -runs times, and
// prints the median wall time and the largest peak RSS of the timed runs,
// with the first run's time and peak apart (from /usr/bin/time when it is
// installed, else from the child's rusage), and the largest Go heap the
// garbage collector saw, the median over the runs (the views run with
// GODEBUG=gctrace=1). It first runs `switchboard version` with each binary: its peak RSS is what any
// command costs before it does anything (the pages of the binary). With
// no -bin it builds ./cmd/switchboard of the current checkout. docs/
// mailbox-benchmarks.md explains the figures and gives results.
package main
