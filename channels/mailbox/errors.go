package mailbox

import "errors"

// Errors of the mailbox channel's send path, for errors.Is.
var (
	// ErrLoop refuses a send or forward to an agent already in the trace.
	ErrLoop = errors.New("circular route: target already in trace")
	// ErrTTLExhausted refuses a send or forward whose hop budget is spent.
	ErrTTLExhausted = errors.New("ttl exhausted: handle the message here, it cannot be passed on")
	// ErrHopLimit refuses a reply past channels.mailbox.maxThreadHops.
	ErrHopLimit = errors.New("thread hop limit reached")
	// ErrTaskNotActive is returned when answering a task this agent is not
	// (or no longer) working on, for example one its deadline already failed.
	ErrTaskNotActive = errors.New("task not active")
	// ErrNotRunning is returned by sends on a channel that is not started.
	ErrNotRunning = errors.New("mailbox channel not running")
	// ErrNoAgent is returned when no online agent offers a capability.
	ErrNoAgent = errors.New("no online agent")
)
