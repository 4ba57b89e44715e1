package channels_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// Tests that wait for deadlines run in a synctest bubble: the deadline is on
// the bubble's fake clock, so they are instant and exact, and synctest.Wait
// tells when the Manager's goroutines have settled.

func TestManagerStopStopsEveryChannel(t *testing.T) {
	b := bus.New(4)
	alpha, beta := newFake("alpha", b), newFake("beta", b)
	m := newTestManager(t, b, fastRetry, alpha, beta, bareChannel{name: "bare"})
	require.NoError(t, m.Start(t.Context()))

	m.stop(t)
	m.stop(t) // twice is fine
	for _, ch := range []*fakeChannel{alpha, beta} {
		starts, stops, _ := ch.counts()
		assert.Equal(t, 1, starts, "%s starts", ch.Name())
		assert.Equal(t, 1, stops, "%s stops", ch.Name())
	}
	none(t, m.errors, "dispatch error")
}

func TestManagerStopWithoutStart(t *testing.T) {
	b := bus.New(4)
	alpha := newFake("alpha", b)
	m := newTestManager(t, b, fastRetry, alpha)
	m.stop(t)
	_, stops, _ := alpha.counts()
	assert.Zero(t, stops, "a channel never started is not stopped")
}

func TestManagerStopJoinsChannelErrors(t *testing.T) {
	errA, errB := errors.New("flush failed"), errors.New("socket closed")
	b := bus.New(4)
	alpha, beta, gamma := newFake("alpha", b), newFake("beta", b), newFake("gamma", b)
	alpha.stopErr, gamma.stopErr = errA, errB
	m := newTestManager(t, b, fastRetry, alpha, beta, gamma)
	require.NoError(t, m.Start(t.Context()))

	err := m.Stop(t.Context())
	require.ErrorIs(t, err, errA)
	require.ErrorIs(t, err, errB)
	assert.Contains(t, err.Error(), `stop channel "alpha"`)
	assert.Contains(t, err.Error(), `stop channel "gamma"`)
	assert.NotContains(t, err.Error(), `"beta"`)
	_, stops, _ := beta.counts()
	assert.Equal(t, 1, stops)
}

func TestManagerStopRespectsDeadline(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the channel "slow" misbehave; release, if not nil,
		// lets it finish after Stop returned.
		setup func(slow *fakeChannel) (release func())
		// deadline bounds Stop's context; zero means no deadline, so that
		// StopTimeout (5s) applies.
		deadline time.Duration
		wantErr  []string // substrings of Stop's error
	}{
		{
			name:     "channel Stop waits for its context",
			setup:    func(slow *fakeChannel) func() { slow.stopWaitsForCtx = true; return nil },
			deadline: 3 * time.Second,
			wantErr:  []string{`stop channel "slow"`},
		},
		{
			name:    "StopTimeout when the context has no deadline",
			setup:   func(slow *fakeChannel) func() { slow.stopWaitsForCtx = true; return nil },
			wantErr: []string{`stop channel "slow"`},
		},
		{
			name: "channel Stop ignores its context",
			setup: func(slow *fakeChannel) func() {
				slow.stopBlocks = make(chan struct{})
				return func() { close(slow.stopBlocks) }
			},
			deadline: 3 * time.Second,
			wantErr:  []string{`stop channel "slow": did not stop in time`},
		},
		{
			name: "send ignores its context",
			setup: func(slow *fakeChannel) func() {
				stuck := make(chan struct{})
				slow.onSend = func(context.Context, bus.OutboundMessage) error { <-stuck; return nil }
				return func() { close(stuck) }
			},
			deadline: 3 * time.Second,
			wantErr:  []string{"dispatcher did not finish"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := bus.New(4)
				fast, slow := newFake("fast", b), newFake("slow", b)
				release := tt.setup(slow)
				m := newTestManager(t, b, channels.ManagerConfig{StopTimeout: 5 * time.Second}, fast, slow)
				require.NoError(t, m.Start(t.Context()))
				// Give the slow channel a message to be busy with.
				m.publish(t, bus.OutboundMessage{Channel: "slow", ChatID: "c1"})
				receive(t, slow.sending, "the send to begin")

				ctx := context.Background()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				start := time.Now()
				err := m.Stop(ctx)
				require.Error(t, err)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				for _, want := range tt.wantErr {
					assert.Contains(t, err.Error(), want)
				}
				wantElapsed := tt.deadline
				if wantElapsed == 0 {
					wantElapsed = 5 * time.Second
				}
				// The bubble's fake clock makes this exact, not a timing
				// assertion: it shows which deadline Stop kept.
				assert.Equal(t, wantElapsed, time.Since(start), "Stop returns at the deadline")

				synctest.Wait() // the channels' Stop calls have run

				for _, ch := range []*fakeChannel{fast, slow} {
					_, stops, _ := ch.counts()
					assert.Equal(t, 1, stops, "%s is stopped even so", ch.Name())
				}
				if release != nil {
					release() // let the bubble's goroutines end
				}
			})
		})
	}
}

// TestManagerStopReportsUndelivered checks that nothing queued for a channel
// is dropped silently: the message being sent sees its context cancelled,
// and the ones waiting behind it are reported as not delivered.
func TestManagerStopReportsUndelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(8)
		ch := newFake("alpha", b)
		ch.onSend = func(ctx context.Context, _ bus.OutboundMessage) error {
			<-ctx.Done()
			return ctx.Err()
		}
		m := newTestManager(t, b, fastRetry, ch)
		require.NoError(t, m.Start(t.Context()))
		for _, id := range []string{"c0", "c1", "c2", "c3"} {
			m.publish(t, bus.OutboundMessage{Channel: "alpha", ChatID: id})
		}
		// Once everything has settled, the worker is inside Send with c0 and
		// c1..c3 wait in the channel's queue.
		synctest.Wait()
		assert.Equal(t, 0, b.OutboundDepth(), "the dispatcher took every message")

		m.stop(t)
		reports := map[string]*channels.DispatchError{}
		for range 4 {
			de := receive(t, m.errors, "dispatch error")
			reports[de.ChatID] = de
		}
		none(t, m.errors, "extra dispatch error")
		require.Len(t, reports, 4, "one report per message")
		assert.ErrorIs(t, reports["c0"], context.Canceled)
		assert.Equal(t, 1, reports["c0"].Attempts)
		for _, id := range []string{"c1", "c2", "c3"} {
			assert.ErrorIs(t, reports[id], channels.ErrNotRunning, id)
			assert.Zero(t, reports[id].Attempts, id)
		}
		_, _, tries := ch.counts()
		assert.Equal(t, 1, tries, "no send starts once Stop began")
	})
}

func TestManagerStopThenSendIsNotRunning(t *testing.T) {
	b := bus.New(4)
	alpha := newFake("alpha", b)
	m := newTestManager(t, b, fastRetry, alpha)
	require.NoError(t, m.Start(t.Context()))
	m.stop(t)

	err := m.Send(t.Context(), bus.OutboundMessage{Channel: "alpha", ChatID: "c1"})
	require.ErrorIs(t, err, channels.ErrNotRunning)
	var de *channels.DispatchError
	require.ErrorAs(t, err, &de)
	assert.Zero(t, de.Attempts)
	_, _, tries := alpha.counts()
	assert.Zero(t, tries)
}

func TestManagerRestart(t *testing.T) {
	b := bus.New(4)
	alpha := newFake("alpha", b)
	m := newTestManager(t, b, fastRetry, alpha)
	require.NoError(t, m.Start(t.Context()))
	m.stop(t)
	require.NoError(t, m.Start(t.Context()))

	m.publish(t, bus.OutboundMessage{Channel: "alpha", ChatID: "again"})
	assert.Equal(t, "again", receive(t, alpha.delivered, "delivery after restart").ChatID)
	m.stop(t)
	starts, stops, _ := alpha.counts()
	assert.Equal(t, 2, starts)
	assert.Equal(t, 2, stops)
}
