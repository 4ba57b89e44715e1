package backoff

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/switchboard-dev/switchboard/clock"
)

// DefaultJitter is the part of each wait drawn at random when a Policy
// sets none.
const DefaultJitter = 0.5

// Policy is exponential backoff with jitter: the wait before retry n
// (counted from 0) is Initial·2ⁿ, capped at Max, less a random part of up
// to Jitter of it, so that waiters that failed together do not retry in
// lock step.
type Policy struct {
	// Initial is the wait before the first retry (0: every wait is Max).
	Initial time.Duration
	// Max caps every wait (Initial when below it).
	Max time.Duration
	// Jitter is the fraction of each wait that is random, from 0 to 1: a
	// wait of d lasts between d·(1−Jitter) and d. 0 takes DefaultJitter;
	// a negative value turns jitter off.
	Jitter float64
}

// ceiling is the wait before retry n without jitter.
func (p Policy) ceiling(n int) time.Duration {
	limit := max(p.Max, p.Initial, 0)
	d := p.Initial
	if d <= 0 {
		return limit
	}
	for range n {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// Delay returns the wait before retry n (0 for the first retry).
func (p Policy) Delay(n int) time.Duration {
	d := p.ceiling(max(n, 0))
	j := p.Jitter
	switch {
	case j == 0:
		j = DefaultJitter
	case j < 0:
		return d
	case j > 1:
		j = 1
	}
	if spread := int64(float64(d) * j); spread > 0 {
		d -= time.Duration(rand.Int64N(spread + 1))
	}
	return d
}

// Start returns the sequence of waits of one retry loop under p.
func (p Policy) Start() *Backoff { return &Backoff{p: p} }

// Backoff is one loop's sequence of waits under a Policy. It is not safe
// for concurrent use; each loop has its own.
type Backoff struct {
	p Policy
	n int
}

// Next returns the wait before the next retry and counts it.
func (b *Backoff) Next() time.Duration {
	d := b.p.Delay(b.n)
	b.n++
	return d
}

// Reset starts the sequence again from Initial, after a success.
func (b *Backoff) Reset() { b.n = 0 }

// Sleep waits d on clk (nil: the real clock). It returns ctx.Err() if ctx
// ends first, nil otherwise.
func Sleep(ctx context.Context, clk clock.Clock, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := clock.Or(clk).NewTimer(d)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}
