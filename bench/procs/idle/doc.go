// Command idle is the raw idle process of bench/procs: a Go program that
// does nothing but wake at every interval given as its argument (a
// time.ParseDuration string) until SIGTERM or SIGINT. It imports nothing
// beyond the standard library, so that the CPU it uses is the least any
// Go process that wakes as often costs (the bench's own binary embeds
// nats-server, whose process-statistics package wakes every second from
// an initialiser, and is no such floor). With an interval of 0 it exits at
// once: the least a Go process costs to start, which the bench sets beside
// the start of `switchboard version` (whose initialisers are most of its
// cost).
package main
