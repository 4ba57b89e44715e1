package driver

import "context"

// Nudger is a Backend that can tell a running agent at once that a state
// record of its was written for it by someone else (a drain request), so
// that the agent need not read the record at every heartbeat to notice it.
// A nudge carries nothing and may be lost or come twice: a listener reads
// the record when nudged, and still reads it now and then.
type Nudger interface {
	// Nudge tells the listeners of agent's record key that it changed. It
	// does not wait for them; nil means the nudge was sent, not received.
	Nudge(ctx context.Context, agent, key string) error
	// ListenNudges calls fn, on a goroutine of the backend and one call at
	// a time, after each nudge of agent's record key, and also whenever
	// nudges may have been missed (after the connection to a server came
	// back), until stop is called; stop waits for a running fn. An error
	// says it cannot listen (credentials that do not allow it): the
	// caller reads the record at every heartbeat instead.
	ListenNudges(ctx context.Context, agent, key string, fn func()) (stop func(), err error)
}
