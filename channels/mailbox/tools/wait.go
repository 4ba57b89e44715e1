package tools

import (
	"fmt"
	"math"
	"time"
)

// MaxWait bounds the waits a tool is given in seconds (deadline_seconds,
// reply_within_seconds): a year. Past it, time.Duration would overflow
// (1e300 seconds wrapped round to a deadline in 1734), and no agent waits
// that long.
const MaxWait = 365 * 24 * time.Hour

// waitOf returns the wait of n seconds given as argument name: 0 for 0,
// an error naming the argument for a negative number or one past MaxWait.
func waitOf(name string, n float64) (time.Duration, error) {
	switch {
	case n < 0 || math.IsNaN(n):
		return 0, fmt.Errorf("%s must be positive", name)
	case n > MaxWait.Seconds():
		return 0, fmt.Errorf("%s is %g: at most %d (a year)", name, n, int64(MaxWait.Seconds()))
	}
	return time.Duration(n * float64(time.Second)), nil
}
