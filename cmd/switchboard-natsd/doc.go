// Command switchboard-natsd runs a NATS server with JetStream on a free
// port of 127.0.0.1 for `switchboard demo --backend nats`, which starts it
// so that no agent process links a NATS server: it prints the server's
// URL on stdout once it accepts connections, and shuts down when its
// standard input ends (the demo closes it, or is gone) or on SIGTERM.
// SIGINT is ignored: a Ctrl-C in the demo's terminal stops the agents
// first, and the demo then closes the server.
//
// Usage:
//
//	switchboard-natsd -dir FOLDER
package main
