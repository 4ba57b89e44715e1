// Package layers holds the test that keeps the module's imports pointing
// down the layers of docs/architecture.md: bus → channels → the mailbox's
// parts → the mailbox channel, and beside it agentloop, which knows no
// channel → host, which wires what the channels offer the loop and knows
// no channel either → observe (metrics) → cli. It has no code of its own.
package layers
