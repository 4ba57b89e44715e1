// Command footprint measures what a switchboard process costs before it
// does any work: how long a short command takes from exec to exit, how
// much memory an idle receiving agent holds, and how big the binary is.
//
// It builds ./cmd/switchboard and a Go hello-world with the same toolchain
// (or takes -bin), then, in one run and interleaved so that both see the
// same machine load:
//
//   - start: runs `hello`, `switchboard version` and `switchboard send` (to
//     an agent of a fresh folder store) -runs times each and reports the
//     median wall time and the median CPU time (user+system) of each, and
//     their ratio to hello, the raw limit of starting a Go program;
//   - idle agent: starts `switchboard recv AGENT` on the folder store,
//     waits until it listens and then -settle more (past its first
//     heartbeats), and reads its resident memory from
//     /proc/PID/smaps_rollup (Rss, Pss, anonymous, file-backed) and its
//     thread count (Linux only; elsewhere this part is skipped);
//   - binary: the size of each binary on disk.
//
// -peer names another switchboard binary (for example one built from an
// earlier commit) measured the same way in the same run, so that a change
// is compared against its predecessor under the same load.
//
// Usage:
//
//	go run ./bench/footprint [-runs 200] [-settle 6s] [-bin FILE] [-peer FILE]
//
// docs/mailbox-benchmarks.md ("Footprint of a process") gives results.
package main
