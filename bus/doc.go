// Package bus carries messages between chat channels and the agent loop
// inside one process.
//
// Channels publish InboundMessage values (what a user or another agent said)
// and consume OutboundMessage values (what the agent answers); the agent loop
// does the opposite. The Bus is bounded: a full queue makes publishers wait
// until there is room or their context ends, so memory never grows without
// limit. Close is safe at any time and from any goroutine: publishers after
// Close get ErrClosed, and consumers drain what was queued and then get
// ErrClosed too.
//
// Delivery to the agent is at least once end to end, and the bus carries
// what that needs: a channel acknowledges what it received (a mailbox
// message, a chat event) only when the consumer says it has finished with
// it, by calling InboundMessage.Done once its turn completed and its answer
// was sent (OutboundMessage.Sent tells the loop when that is). A message
// the consumer did not finish — the process crashed or stopped mid-turn —
// stays with its channel (claimed in the mailbox, in the channel's journal)
// and comes back on the next start. Being on the bus is not being handled.
package bus
