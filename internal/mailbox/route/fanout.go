package route

import "github.com/switchboard-dev/switchboard/channels/mailbox/envelope"

// Skipped is a recipient of a fan-out that was not sent to, and why.
type Skipped struct {
	To  string
	Err error
}

// Fanout is the result of a send to a group target (the channel's
// PostTo): what was sent, and to whom it was not.
type Fanout struct {
	// Sent are the messages sent, one per recipient, in recipient order;
	// they share one thread (the first one's id).
	Sent []*envelope.Message
	// Skipped are the recipients the loop rules refused (already in the
	// trace, or no hops left) or the guard rails did (a rate limit, an
	// open circuit breaker).
	Skipped []Skipped
}
