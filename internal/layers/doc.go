// Package layers holds the test that keeps the module's imports pointing
// down the layers of docs/architecture.md: bus → channels → the mailbox's
// parts → the mailbox channel → agentloop → host → observe (metrics) → cli. It has no code of
// its own.
package layers
