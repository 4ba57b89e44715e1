package driver

import "time"

// Notify passes ev to obs, with Time set to now() when it is zero. A nil
// obs does nothing.
func Notify(obs Observer, now func() time.Time, ev Event) {
	if obs == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = now()
	}
	obs(ev)
}
