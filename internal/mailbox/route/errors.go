package route

import "errors"

// Errors of addressing and of the loop rules, for errors.Is.
var (
	// ErrLoop refuses a send or forward to an agent already in the trace.
	ErrLoop = errors.New("circular route: target already in trace")
	// ErrTTLExhausted refuses a send or forward whose hop budget is spent.
	ErrTTLExhausted = errors.New("ttl exhausted: handle the message here, it cannot be passed on")
	// ErrHopLimit refuses a reply past channels.mailbox.maxThreadHops.
	ErrHopLimit = errors.New("thread hop limit reached")
	// ErrUnknownTarget is returned for a target that names no agent: all
	// with nobody else registered, a pattern that matches none, a
	// capability or role nobody has.
	ErrUnknownTarget = errors.New("unknown target")
	// ErrFanout refuses a target with more recipients than maxFanout.
	ErrFanout = errors.New("too many recipients")
	// ErrNoAgent is returned when no online agent offers a capability.
	ErrNoAgent = errors.New("no online agent")
)
