// Package layers holds the tests that keep the module's imports pointing
// down the layers of docs/architecture.md: bus → channels → the mailbox's
// parts → the mailbox channel, and beside it agentloop, which knows no
// channel → host, which wires what the channels offer the loop and knows
// no channel either → observe (metrics) → cli; and that keep the modules
// (providers, backends, channel types) out of the libraries: the program
// picks them (cmd/switchboard/main.go). It has no code of its own.
package layers
