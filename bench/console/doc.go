// Command console measures what one open console page costs the
// `switchboard console` process on a large mailbox while messages
// arrive: CPU seconds (user and system, from the process's rusage) of
// the console over the run, for one or more switchboard binaries side by
// side on the same kind of tree in the same run.
//
// Usage:
//
//	go run ./bench/console [-n 20000] [-rate 5] [-for 30s] [-root DIR] [-bin NAME=PATH ...]
//
// For each binary it writes a fresh tree of -n handled messages
// (conversations between ten agents: requests, replies, tasks and their
// updates), starts `switchboard console` on it, opens one page as the
// browser does (the server-sent events of /api/events, and a read of
// /api/state when the page is told to, never two at once, one more after
// a read if told meanwhile), waits for the page's first state, then
// delivers -rate messages a second for -for, stops the console and
// prints its CPU seconds: over the whole run, until the page's first
// state (the start and the first read of every message), and while the
// messages arrived with the share of one core that is (the last two from
// /proc on Linux only), and how many reads of the state the page made. With no -bin it builds
// ./cmd/switchboard of the current checkout. docs/console.md gives
// results.
package main
