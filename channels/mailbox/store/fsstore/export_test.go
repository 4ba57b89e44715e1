package fsstore

import "github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"

// Crash closes in, an Inbox of this store, as a killed receiver leaves it:
// the claims it holds are not released, so their hand-outs count towards
// Options.MaxDeliver.
func Crash(in driver.Inbox) error { return in.(*Inbox).close(false) }
