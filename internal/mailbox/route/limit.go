package route

import (
	"errors"
	"fmt"
	"time"
)

// Errors of the guard rails on sends, for errors.Is. A send they refuse
// returns a *LimitError that wraps one of them and says how long to wait.
var (
	// ErrRateLimited refuses a send over a rate limit of
	// channels.mailbox.limits (perEdge or perAgent).
	ErrRateLimited = errors.New("rate limited")
	// ErrBreakerOpen refuses a send to a recipient whose circuit breaker
	// is open: too many of its deliveries failed or tasks were rejected
	// lately (channels.mailbox.limits.breaker).
	ErrBreakerOpen = errors.New("circuit breaker open")
)

// LimitError is a send refused by a guard rail: which one, and when a
// new try can succeed.
type LimitError struct {
	// Kind is ErrRateLimited or ErrBreakerOpen.
	Kind error
	// From and To are the sender and the recipient.
	From, To string
	// Rule says which limit refused the send, naming its key.
	Rule string
	// RetryAfter is how long to wait before sending to To again.
	RetryAfter time.Duration
}

// Error says which limit refused the send and how long to wait.
func (e *LimitError) Error() string {
	return fmt.Sprintf("send %s → %s: %v: %s; wait %s before sending to %s again",
		e.From, e.To, e.Kind, e.Rule, RoundWait(e.RetryAfter), e.To)
}

// Unwrap returns Kind.
func (e *LimitError) Unwrap() error { return e.Kind }

// RetryAfter returns how long err (a send refused by a guard rail) asks
// to wait, and whether it is such a refusal.
func RetryAfter(err error) (time.Duration, bool) {
	var le *LimitError
	if !errors.As(err, &le) {
		return 0, false
	}
	return le.RetryAfter, true
}

// RoundWait rounds a wait up to a whole second (at least one), the unit
// people and models read.
func RoundWait(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}
