package bus_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
)

func TestPublishAfterClose(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
	}{
		{name: "live context", ctx: context.Background()},
		{name: "ended context", ctx: canceled},
	}
	for _, tt := range tests {
		for _, s := range sides {
			t.Run(tt.name+"/"+s.name, func(t *testing.T) {
				b := bus.New(4)
				require.NoError(t, b.Close())
				err := s.publish(tt.ctx, b, 1)
				require.ErrorIs(t, err, bus.ErrClosed)
				assert.Equal(t, 0, s.depth(b))
			})
		}
	}
}

func TestConsumersDrainThenGetErrClosed(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			ctx := t.Context()
			b := bus.New(4)
			for i := range 3 {
				require.NoError(t, s.publish(ctx, b, i))
			}
			require.NoError(t, b.Close())
			assert.Equal(t, 3, s.depth(b), "Close keeps what is queued")

			for i := range 3 {
				n, err := s.consume(ctx, b)
				require.NoError(t, err)
				assert.Equal(t, i, n)
			}
			for range 2 { // and stays closed
				_, err := s.consume(ctx, b)
				require.ErrorIs(t, err, bus.ErrClosed)
			}
		})
	}
}

func TestCloseTwice(t *testing.T) {
	b := bus.New(1)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	require.ErrorIs(t, b.PublishInbound(t.Context(), bus.InboundMessage{}), bus.ErrClosed)
}

func TestConcurrentClose(t *testing.T) {
	b := bus.New(1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.NoError(t, b.Close()) })
	}
	wg.Wait()
	require.ErrorIs(t, b.PublishOutbound(t.Context(), bus.OutboundMessage{}), bus.ErrClosed)
}

func TestCloseWakesBlockedPublishers(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				b := bus.New(1)
				require.NoError(t, s.publish(ctx, b, 0))

				done := make(chan error, 3)
				for i := 1; i <= 3; i++ {
					go func() { done <- s.publish(ctx, b, i) }()
				}
				synctest.Wait()
				notYet(t, done, "publish to a full bus")

				require.NoError(t, b.Close())
				for range 3 {
					require.ErrorIs(t, <-done, bus.ErrClosed)
				}
				// Only the message queued before Close is left.
				n, err := s.consume(ctx, b)
				require.NoError(t, err)
				assert.Equal(t, 0, n)
				_, err = s.consume(ctx, b)
				require.ErrorIs(t, err, bus.ErrClosed)
			})
		})
	}
}

func TestCloseWakesBlockedConsumers(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := bus.New(1)
				done := make(chan error, 3)
				for range 3 {
					go func() {
						_, err := s.consume(t.Context(), b)
						done <- err
					}()
				}
				synctest.Wait()
				notYet(t, done, "consume on an empty bus")

				require.NoError(t, b.Close())
				for range 3 {
					require.ErrorIs(t, <-done, bus.ErrClosed)
				}
			})
		})
	}
}

// TestCloseUnderLoad closes the bus while 64 goroutines publish as fast as
// they can and 4 consume. Every publish must either succeed, and then be
// consumed exactly once, or fail with ErrClosed; nothing panics, nothing is
// lost or duplicated. Run it with -race.
func TestCloseUnderLoad(t *testing.T) {
	const (
		publishers   = 64
		consumers    = 4
		closeAfter   = 2000 // messages consumed before Close
		perPublisher = 1 << 20
	)
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			ctx := t.Context()
			b := bus.New(16)

			// Publisher p sends p*perPublisher, p*perPublisher+1, ... until
			// the bus is closed; it records what was accepted.
			published := make([][]int, publishers)
			pubErrs := make([]error, publishers)
			var pubs sync.WaitGroup
			for p := range publishers {
				pubs.Go(func() {
					for i := range perPublisher {
						n := p*perPublisher + i
						if err := s.publish(ctx, b, n); err != nil {
							pubErrs[p] = err
							return
						}
						published[p] = append(published[p], n)
					}
				})
			}

			var (
				consumed  = make([][]int, consumers)
				conErrs   = make([]error, consumers)
				count     atomic.Int64
				enough    = make(chan struct{})
				closeOnce sync.Once
				cons      sync.WaitGroup
			)
			for c := range consumers {
				cons.Go(func() {
					for {
						n, err := s.consume(ctx, b)
						if err != nil {
							conErrs[c] = err
							return
						}
						consumed[c] = append(consumed[c], n)
						if count.Add(1) == closeAfter {
							closeOnce.Do(func() { close(enough) })
						}
					}
				})
			}

			select {
			case <-enough:
			case <-time.After(time.Minute):
				t.Fatal("consumers did not receive enough messages")
			}
			require.NoError(t, b.Close())
			pubs.Wait()
			cons.Wait()

			for p, err := range pubErrs {
				// Publishers never run out of messages, so each one ends
				// with ErrClosed and nothing else.
				require.ErrorIs(t, err, bus.ErrClosed, "publisher %d", p)
			}
			for c, err := range conErrs {
				require.ErrorIs(t, err, bus.ErrClosed, "consumer %d", c)
			}

			want := slices.Concat(published...)
			got := slices.Concat(consumed...)
			slices.Sort(want)
			slices.Sort(got)
			require.Equal(t, want, got, "every accepted message is consumed exactly once")
			require.GreaterOrEqual(t, len(got), closeAfter)

			// Each publisher's messages stay in order within each consumer.
			for c, list := range consumed {
				last := map[int]int{}
				for _, n := range list {
					p := n / perPublisher
					if prev, ok := last[p]; ok && n <= prev {
						t.Fatalf("consumer %d got %d after %d from publisher %d", c, n, prev, p)
					}
					last[p] = n
				}
			}
		})
	}
}

func TestErrClosedIsSentinel(t *testing.T) {
	b := bus.New(1)
	require.NoError(t, b.Close())
	_, err := b.ConsumeInbound(t.Context())
	assert.True(t, errors.Is(err, bus.ErrClosed))
	assert.Equal(t, "bus: closed", err.Error())
}
