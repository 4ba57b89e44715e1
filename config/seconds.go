package config

import (
	"fmt"
	"math"
	"strconv"
)

// Units of the duration keys, which are numbers of seconds.
const (
	// Minute is a minute in seconds.
	Minute = 60
	// Hour is an hour in seconds.
	Hour = 3600
	// Day is a day in seconds.
	Day = 24 * Hour
	// Year is 365 days in seconds, the longest any duration key may be:
	// far below what a time.Duration holds (292 years).
	Year = 365 * Day
)

// Lower bounds of duration keys, in seconds.
const (
	// MinPeriod is the shortest period of something done again and again
	// (a poll, a heartbeat): shorter ones keep a core busy.
	MinPeriod = 0.01
	// MinTimeout is the shortest timeout or age limit.
	MinTimeout = 0.001
)

// SecondsRange is what a duration key given in seconds may hold.
type SecondsRange struct {
	// Min and Max bound the value, both included.
	Min, Max float64
	// Zero, when set, also allows 0 and says what it means ("no limit").
	Zero string
}

// Problem returns what is wrong with v as a value of a key of range r, or
// "" when v is fine. NaN and infinities are never fine.
func (r SecondsRange) Problem(v float64) string {
	if r.Zero != "" && v == 0 {
		return ""
	}
	if v >= r.Min && v <= r.Max { // false for NaN
		return ""
	}
	msg := fmt.Sprintf("want a number of seconds from %s to %s (%s)", bound(r.Min), bound(r.Max), spell(r.Max))
	if r.Zero != "" {
		msg += ", or 0 for " + r.Zero
	}
	return msg + ", got " + showSeconds(v)
}

// showSeconds prints a number of seconds as the configuration writes it.
func showSeconds(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// bound prints a bound in plain digits: 31536000, 0.01.
func bound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// spell says a number of seconds in the largest whole unit: "1 day".
func spell(s float64) string {
	for _, u := range []struct {
		name string
		secs float64
	}{{"year", Year}, {"day", Day}, {"hour", Hour}, {"minute", Minute}} {
		if n := s / u.secs; n >= 1 && n == math.Trunc(n) {
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatFloat(n, 'g', -1, 64) + " " + u.name + "s"
		}
	}
	return bound(s) + " s"
}
