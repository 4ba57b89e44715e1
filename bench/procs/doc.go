// Command procs measures a thousand agent processes on one machine (issue
// 29): it starts -n `switchboard recv` processes at once on one mailbox
// (a folder root, a NATS server, or a three-node NATS cluster with
// replicated streams) and reports, beside their targets and the raw
// limit measured in the same run:
//
//   - start: how long until every agent listens (registered), against
//     the same number of `switchboard version` processes and of bare Go
//     programs (bench/procs/idle told to exit at once) started the same
//     way; the CPU the agents and the bench's own process (which embeds
//     the NATS servers) used meanwhile, and the least time all of it
//     takes on the machine's cores; and, on the folder store, whether
//     _registry.json holds every card and how often it was rewritten;
//   - inotify instances the agents hold (folder store);
//   - idle CPU of all the agents together, against as many Go processes
//     that only wake at every heartbeat interval (bench/procs/idle, a
//     program of the standard library only, built with the bench);
//   - latency: one message at a time to a random agent, from the start of
//     its send to the agent's line on its stdout, against a raw
//     equivalent (a file created in a folder another process watches; a
//     plain nats.go publish to another process's subscription);
//   - broadcast: `switchboard send --to all` reaches every agent;
//   - load: the machine's load average before the run, when every agent
//     listened and after the idle window (the machine may be shared);
//   - server (NATS): the JetStream API requests and KV writes the server
//     took while the agents started and idle, by kind, counted by a
//     subscription of the bench's own to $JS.API.> and $KV.>.
//
// It exits 1 when a target is missed.
//
// Usage:
//
//	go run ./bench/procs [-n 1000] [-backend fs|nats|cluster|all] [-watch shared|poll|local]
//	                     [-idle 30s] [-warmup 10s] [-sends 200] [-start-limit 2m] [-bin PATH] [-root DIR]
//
// One backend that fails (its agents do not all listen within
// -start-limit) is reported as far as it went, and the next is measured.
//
// It needs, for -n agents, about 2n+100 open files in this process (Go
// raises the soft limit to the hard one by itself) and as many in the
// agent that serves the root's watcher; a user process limit above
// 2n; and nothing else: with the default shared watcher the agents hold
// one inotify instance between them, however low fs.inotify.max_user_instances is.
// Linux measures CPU from /proc/PID/task/*/schedstat; elsewhere the CPU
// figures are left out.
//
// docs/mailbox-benchmarks.md ("A thousand agent processes") gives results.
package main
