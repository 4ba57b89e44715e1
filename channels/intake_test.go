package channels_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// intakeChannel is a fake that can stop receiving.
type intakeChannel struct {
	*fakeChannel
	stopped atomic.Int32
	err     error
}

var _ channels.ReceiveStopper = (*intakeChannel)(nil)

func (c *intakeChannel) StopReceiving(context.Context) error {
	c.stopped.Add(1)
	return c.err
}

func TestManagerStopReceiving(t *testing.T) {
	b := bus.New(4)
	alpha := &intakeChannel{fakeChannel: newFake("alpha", b)}
	beta := &intakeChannel{fakeChannel: newFake("beta", b), err: errors.New("listener stuck")}
	plain := newFake("plain", b)
	m := newTestManager(t, b, fastRetry, alpha, plain, beta)

	require.NoError(t, m.StopReceiving(t.Context()), "nothing to do before Start")
	assert.Zero(t, alpha.stopped.Load())

	require.NoError(t, m.Start(t.Context()))
	err := m.StopReceiving(t.Context())
	require.Error(t, err)
	assert.Equal(t, `stop receiving on channel "beta": listener stuck`, err.Error())
	assert.Equal(t, int32(1), alpha.stopped.Load())
	assert.Equal(t, int32(1), beta.stopped.Load())

	msg := bus.OutboundMessage{Channel: "alpha", Content: "still sent"}
	m.publish(t, msg)
	assert.Equal(t, msg, receive(t, alpha.delivered, "a send after StopReceiving"))
	_, stops, _ := alpha.counts()
	assert.Zero(t, stops, "StopReceiving is not Stop")
}

// Drain, after the bus is closed, returns only once every message that was
// on it has been sent: here the first send is held back, and Drain waits
// for it and for the two behind it.
func TestManagerDrainWaitsForQueuedSends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(8)
		alpha := newFake("alpha", b)
		gate := make(chan struct{})
		var calls atomic.Int32
		alpha.onSend = func(ctx context.Context, _ bus.OutboundMessage) error {
			if calls.Add(1) == 1 {
				<-gate
			}
			return nil
		}
		m := newTestManager(t, b, fastRetry, alpha)
		require.NoError(t, m.Start(t.Context()))
		for _, text := range []string{"one", "two", "three"} {
			m.publish(t, bus.OutboundMessage{Channel: "alpha", Content: text})
		}
		require.NoError(t, b.Close())

		drained := make(chan error, 1)
		go func() { drained <- m.Drain(context.Background()) }()
		synctest.Wait()
		none(t, drained, "Drain result while a send is held back")

		close(gate)
		require.NoError(t, receive(t, drained, "Drain"))
		var got []string
		for _, msg := range alpha.sentMessages() {
			got = append(got, msg.Content)
		}
		assert.Equal(t, []string{"one", "two", "three"}, got)
		m.stop(t)
		none(t, m.errors, "dispatch error")
	})
}

func TestManagerDrainDeadline(t *testing.T) {
	t.Run("bus not closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := bus.New(4)
			m := newTestManager(t, b, fastRetry, newFake("alpha", b))
			require.NoError(t, m.Start(t.Context()))
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			err := m.Drain(ctx)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "the bus was not closed and emptied in time")
		})
	})
	t.Run("send never ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := bus.New(4)
			alpha := newFake("alpha", b)
			alpha.onSend = func(ctx context.Context, _ bus.OutboundMessage) error {
				<-ctx.Done()
				return ctx.Err()
			}
			m := newTestManager(t, b, fastRetry, alpha)
			require.NoError(t, m.Start(t.Context()))
			m.publish(t, bus.OutboundMessage{Channel: "alpha", Content: "stuck"})
			require.NoError(t, b.Close())
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			err := m.Drain(ctx)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "sends still in progress")

			require.NoError(t, m.Stop(t.Context()), "Stop cancels the send")
			de := receive(t, m.errors, "the cancelled send reported")
			assert.Equal(t, "alpha", de.Channel)
		})
	})
	t.Run("not started", func(t *testing.T) {
		b := bus.New(4)
		m := newTestManager(t, b, fastRetry, newFake("alpha", b))
		require.NoError(t, m.Drain(t.Context()))
	})
}
