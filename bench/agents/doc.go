// Command agents measures many idle mailbox agents on one machine (issues
// 13 and 15): it starts -n mailbox channels in this process on one
// filesystem root, each as an agent process would run it (its own store,
// the default configuration: pollInterval 5 s, heartbeat every 5 s,
// offline after 30 s), leaves them idle for -idle and reports the CPU the
// process used meanwhile (getrusage), how often _registry.json was
// replaced, and the inotify instances the process holds. Then it sends one
// message to every agent and reports how fast each arrived: with a 5 s
// poll, a message that arrives within a second was carried by fsnotify.
//
// Usage:
//
//	go run ./bench/agents [-n 300] [-idle 30s] [-warmup 6s] [-root DIR]
//
// docs/mailbox-benchmarks.md ("Many agents on one machine") gives results.
package main
