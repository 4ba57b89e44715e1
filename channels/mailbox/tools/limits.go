package tools

import (
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// sendError returns the error a tool reports for a failed send. A send
// refused by a guard rail (a rate limit, an open circuit breaker) gets
// advice for the model: how long to wait, and what to do meanwhile.
func sendError(err error) error {
	wait, ok := route.RetryAfter(err)
	if !ok {
		return err
	}
	what := "you are sending too fast"
	if errors.Is(err, route.ErrBreakerOpen) {
		what = "that agent keeps failing or rejecting work"
	}
	return fmt.Errorf("%w. Not sent: %s. Wait at least %s before trying this agent again; meanwhile do the "+
		"work yourself or tell the user it is delayed, and do not retry at once", err, what, route.RoundWait(wait))
}
