// Package backlog reads what waits in an agent's inbox: how many messages
// and the timestamp of the oldest, from any mailbox store. The metrics
// of a running host (package observe/metrics) and `switchboard stats`
// read it the same way; it needs nothing of Prometheus, so a command that
// only reads the store does not carry it.
package backlog
