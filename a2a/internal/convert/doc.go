// Package convert translates between the mailbox's words and A2A's: task
// states both ways, content parts both ways, and what switchboard carries
// in A2A metadata across a hop (the W3C trace context, the task tree and
// the budget). The gateway's server and its remote participants share it,
// so that one table says how a state maps.
package convert
