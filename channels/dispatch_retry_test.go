package channels_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/clock"
)

// A send's retries wait on the Manager's clock, growing from RetryBackoff
// to MaxBackoff.
func TestSendRetriesWaitOnTheClock(t *testing.T) {
	clk := clock.NewManual(time.Unix(1745659200, 0))
	b := bus.New(4)
	alpha := newFake("alpha", b)
	busy := channels.Temporary(errors.New("busy"))
	alpha.sendErrs = []error{busy, busy, busy}
	m := newTestManager(t, b, channels.ManagerConfig{Clock: clk, RetryBackoff: time.Second, MaxBackoff: 2 * time.Second}, alpha)
	require.NoError(t, m.Start(t.Context()))

	done := make(chan error, 1)
	armed := clk.Armed()
	go func() {
		done <- m.Send(t.Context(), bus.OutboundMessage{Channel: "alpha", ChatID: "c1", Content: "hi"})
	}()
	for i, ceiling := range []time.Duration{time.Second, 2 * time.Second, 2 * time.Second} {
		<-armed // the send waits before retry i+1
		armed = clk.Armed()
		_, _, tries := alpha.counts()
		assert.Equal(t, i+1, tries, "no retry before its wait is over")
		clk.Add(ceiling) // a wait is at most its ceiling: the jitter only shortens it
	}
	require.NoError(t, receive(t, done, "the send after three retries"))
	_, _, tries := alpha.counts()
	assert.Equal(t, 4, tries)
}
