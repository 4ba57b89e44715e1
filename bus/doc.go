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
package bus
