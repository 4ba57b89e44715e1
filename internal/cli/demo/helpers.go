package demo

import (
	"errors"
	"fmt"
	"time"
)

// stopTimeout is how long each agent gets to finish its turns on SIGTERM,
// and again to stop its channels (run's --stop-timeout default).
const stopTimeout = 10 * time.Second

// usageError is an error in how the demo was called (exit status 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// IsUsage reports whether err is an error in how the demo was called.
func IsUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// seconds turns a config's number of seconds into a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
