// Package meta is the contract between the mailbox channel and the agent
// loop: the details of a mailbox message that travel in a bus message's
// Metadata (Meta), the options of an answer (Reply), and Classify, the one
// place that decides what an inbound message asks of the agent and so what
// an answer to it becomes. The loop and the channel both call it.
//
// It is a leaf: it imports only the wire format (envelope), so the agent
// loop depends on it without depending on the channel or a backend.
package meta
