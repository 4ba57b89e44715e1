package cli

import (
	"errors"
	"fmt"
	"strings"
)

// Exit statuses of Main.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // the command ran and failed
	ExitUsage   = 2 // bad usage: unknown command or flag, missing argument, bad value
)

// usageError is an error in how the command was called rather than in what
// it did. Main exits with ExitUsage for it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsage marks err (when not nil) as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err}
}

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// oneLine folds a possibly multi-line message (cobra's suggestions) into
// one line.
func oneLine(s string) string {
	return safeText(strings.Join(strings.Fields(s), " "))
}
