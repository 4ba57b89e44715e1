package driver

import (
	"context"
	"time"
)

// TurnTaker is a Backend that shares a periodic duty among the agents of
// a store, so that a duty every agent would otherwise do (marking crashed
// agents offline reads every card) is done once per period for all of
// them, however many there are.
type TurnTaker interface {
	// TakeTurn reports whether the caller should do duty now: true when
	// no caller was told so within every before now (or the last turn
	// lies after now: a clock moved back). Callers told false skip the
	// duty; a caller told true that fails at it leaves it to the next
	// turn. duty is lower-case letters, digits and '-'.
	TakeTurn(ctx context.Context, duty string, now time.Time, every time.Duration) (bool, error)
}
