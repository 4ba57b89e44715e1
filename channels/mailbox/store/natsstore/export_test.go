package natsstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Crash closes in, an Inbox of this store, as a receiver killed a while
// after its last hand-out leaves it: the record of hand-outs as its
// writer had written it by then, the hand-outs still held not released,
// so they count towards MaxDeliver.
func Crash(in driver.Inbox) error {
	i := in.(*Inbox)
	if err := i.rec.write(context.Background()); err != nil {
		return err
	}
	return i.close(false)
}

// Counted returns the hand-out counts of in's record, by stream sequence.
func Counted(in driver.Inbox) map[uint64]int { return in.(*Inbox).rec.counted() }
