package driver

import "context"

// PipelinedAcker is an Inbox that can acknowledge without waiting for the
// acknowledgement to be durable, so that a receiver takes its next
// message while the store makes a batch of acknowledgements durable
// together (group commit). Nothing is lost by it: an acknowledgement that
// a machine crash undoes brings the message back (at-least-once), as a
// crash before Ack does.
type PipelinedAcker interface {
	// AckPipelined acknowledges d as Ack does, returning once the
	// acknowledgement is made (the message will not be handed out again
	// by this Inbox), possibly before it is durable. durable, unless nil,
	// is called once, from any goroutine, when it is durable or with the
	// error that kept it from being; it is never called when
	// AckPipelined returns an error. Closing the Inbox waits until every
	// acknowledgement made is durable.
	AckPipelined(ctx context.Context, d *Delivery, durable func(error)) error
}
