// Package meta is what the mailbox says about a message beyond its wire
// format: the details of a mailbox message that travel in a bus message's
// Metadata (Meta), the options of an answer (Reply), Classify, the one
// place that decides what an inbound message asks of the agent and so what
// an answer to it becomes, and the task tree (tree.go: Tree, the task_path
// of a new task, and the rule that refuses a task going round in a cycle).
// The channel, its tools and the command line all call it.
//
// It is a leaf: it imports only the wire format (envelope), so whatever
// reads a mailbox message's details depends on it without depending on the
// channel or a backend.
package meta
