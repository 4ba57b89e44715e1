package channels

import (
	"errors"
	"fmt"
)

var (
	// ErrTemporary marks a send failure worth retrying (a timeout, a rate
	// limit, a connection reset). Wrap errors with Temporary.
	ErrTemporary = errors.New("temporary failure")
	// ErrUnknownChannel is returned for an outbound message naming a channel
	// the Manager does not have.
	ErrUnknownChannel = errors.New("unknown channel")
	// ErrNotRunning is returned for an outbound message to a channel that is
	// not started or already stopped.
	ErrNotRunning = errors.New("channel not running")
	// ErrNotAllowed is returned by Base.HandleMessage for a sender outside
	// the channel's allowFrom list.
	ErrNotAllowed = errors.New("sender not allowed")
)

// temporaryError wraps an error so that errors.Is(err, ErrTemporary) holds
// while the original error stays reachable.
type temporaryError struct{ err error }

func (e temporaryError) Error() string   { return e.err.Error() }
func (e temporaryError) Unwrap() []error { return []error{e.err, ErrTemporary} }

// Temporary marks err as worth retrying. It returns nil for a nil error.
func Temporary(err error) error {
	if err == nil {
		return nil
	}
	return temporaryError{err: err}
}

// IsTemporary reports whether err was marked with Temporary (or wraps
// ErrTemporary).
func IsTemporary(err error) bool { return errors.Is(err, ErrTemporary) }

// DispatchError describes an outbound message the Manager could not deliver.
type DispatchError struct {
	Channel  string // the channel the message named
	ChatID   string // its chat id
	Attempts int    // how many sends were tried
	Err      error  // the last error
}

func (e *DispatchError) Error() string {
	return fmt.Sprintf("deliver to channel %q chat %q failed after %d attempt(s): %v",
		e.Channel, e.ChatID, e.Attempts, e.Err)
}

// Unwrap returns the last send error.
func (e *DispatchError) Unwrap() error { return e.Err }
