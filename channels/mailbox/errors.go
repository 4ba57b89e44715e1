package mailbox

import (
	"errors"

	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Errors of the mailbox channel, for errors.Is. The loop and addressing
// errors of a send (ErrLoop, ErrTTLExhausted, ErrHopLimit, ErrNoAgent, ...)
// are those of package route.
var (
	// ErrTaskNotActive is returned when answering a task this agent is not
	// (or no longer) working on, for example one its deadline already failed.
	ErrTaskNotActive = errors.New("task not active")
	// ErrNotRunning is returned by sends on a channel that is not started.
	ErrNotRunning = errors.New("mailbox channel not running")
	// ErrReplyOwed refuses to archive a request that was not answered
	// (view.ErrReplyOwed: the operator's archive refuses with it too).
	ErrReplyOwed = view.ErrReplyOwed
	// ErrNotHeld is returned by Archive for a message this agent does not
	// hold: never received here, or archived already.
	ErrNotHeld = errors.New("message not held")
)
