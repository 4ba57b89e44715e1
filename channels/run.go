package channels

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// This file holds what every platform channel with a journal does at the
// two ends of a run: hand over again, in the background, what an earlier
// run took in and did not finish; and at Stop, wait for the goroutines of
// the run before the journal is closed.

// ResumeIn runs Resume in a goroutine of g, with ctx: the messages an
// earlier run took in and did not finish are handed over while the
// channel already receives. A failure is logged, unless ctx ended: they
// stay in the journal for the next start.
func (b *Base) ResumeIn(ctx context.Context, g *sync.WaitGroup) {
	g.Go(func() {
		if _, err := b.Resume(ctx); err != nil && ctx.Err() == nil {
			b.logger.Warn("messages of an earlier run not handed over; they are on the next start", "err", err)
		}
	})
}

// Finish ends a run at Stop: it waits for the goroutines of g (the run's
// receivers, the resume, the notices, which the caller has told to end)
// up to ctx's deadline, then closes the journal. When ctx ends first the
// error says that unfinished (say "events in hand") were not finished in
// time; what they held is still in the journal or with the platform.
func (b *Base) Finish(ctx context.Context, g *sync.WaitGroup, unfinished string) error {
	var errs []error
	waited := make(chan struct{})
	go func() { g.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("%s: %s not finished in time: %w", b.name, unfinished, ctx.Err()))
	}
	if b.journal != nil {
		errs = append(errs, b.journal.Close())
	}
	return errors.Join(errs...)
}
