package channels_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// fastRetry makes retries quick without changing their logic.
var fastRetry = channels.ManagerConfig{RetryBackoff: time.Microsecond, MaxBackoff: 4 * time.Microsecond}

func TestDispatchRoutesToNamedChannel(t *testing.T) {
	b := bus.New(16)
	alpha, beta := newFake("alpha", b), newFake("beta", b)
	m := newTestManager(t, b, fastRetry, alpha, beta)
	require.NoError(t, m.Start(t.Context()))

	msg := bus.OutboundMessage{Channel: "beta", ChatID: "c1", Content: "hello", ReplyTo: "m0",
		Media: []string{"/tmp/x.png"}, Metadata: map[string]any{"k": "v"}}
	m.publish(t, msg)
	assert.Equal(t, msg, receive(t, beta.delivered, "delivery to beta"))

	m.stop(t)
	assert.Empty(t, alpha.sentMessages(), "alpha got nothing")
	assert.Equal(t, []bus.OutboundMessage{msg}, beta.sentMessages())
	none(t, m.errors, "dispatch error")
}

func TestDispatchKeepsOrderPerChannel(t *testing.T) {
	const n = 200
	b := bus.New(8)
	alpha, beta := newFake("alpha", b), newFake("beta", b)
	// Some temporary failures on the way must not reorder anything.
	alpha.sendErrs = []error{channels.Temporary(errors.New("busy")), nil, nil, channels.Temporary(errors.New("busy"))}
	m := newTestManager(t, b, channels.ManagerConfig{
		RetryBackoff: time.Microsecond, MaxBackoff: time.Microsecond, QueueSize: 4,
	}, alpha, beta)
	require.NoError(t, m.Start(t.Context()))

	go func() {
		for i := range n {
			for _, name := range []string{"alpha", "beta"} {
				if err := b.PublishOutbound(t.Context(), bus.OutboundMessage{Channel: name, Content: strconv.Itoa(i)}); err != nil {
					return // the bus closes when the test ends
				}
			}
		}
	}()
	for _, ch := range []*fakeChannel{alpha, beta} {
		for i := range n {
			got := receive(t, ch.delivered, fmt.Sprintf("message %d on %s", i, ch.Name()))
			require.Equal(t, strconv.Itoa(i), got.Content, "order on %s", ch.Name())
		}
	}
	m.stop(t)
	none(t, m.errors, "dispatch error")
}

func TestDispatchOutcomes(t *testing.T) {
	errBusy := errors.New("rate limited")
	errPerm := errors.New("chat not found")
	tests := []struct {
		name          string
		attempts      int // ManagerConfig.SendAttempts; 0 = default (4)
		sendErrs      []error
		wantDelivered bool
		wantTries     int   // Send calls for the message
		wantErr       error // errors.Is target of the report
	}{
		{
			name:          "first try",
			wantDelivered: true,
			wantTries:     1,
		},
		{
			name:          "temporary errors retried until success",
			sendErrs:      []error{channels.Temporary(errBusy), channels.Temporary(errBusy)},
			wantDelivered: true,
			wantTries:     3,
		},
		{
			name:          "success on the last allowed attempt",
			sendErrs:      []error{channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy)},
			wantDelivered: true,
			wantTries:     4,
		},
		{
			name:      "permanent error not retried",
			sendErrs:  []error{errPerm},
			wantTries: 1,
			wantErr:   errPerm,
		},
		{
			name:      "permanent error after a temporary one",
			sendErrs:  []error{channels.Temporary(errBusy), errPerm},
			wantTries: 2,
			wantErr:   errPerm,
		},
		{
			name:      "attempts exhausted",
			attempts:  3,
			sendErrs:  []error{channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy)},
			wantTries: 3,
			wantErr:   errBusy,
		},
		{
			name:      "attempts exhausted with the default",
			sendErrs:  []error{channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy), channels.Temporary(errBusy)},
			wantTries: 4,
			wantErr:   errBusy,
		},
		{
			name:      "one attempt only",
			attempts:  1,
			sendErrs:  []error{channels.Temporary(errBusy)},
			wantTries: 1,
			wantErr:   errBusy,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(4)
			ch := newFake("feishu", b)
			ch.sendErrs = tt.sendErrs
			cfg := fastRetry
			cfg.SendAttempts = tt.attempts
			m := newTestManager(t, b, cfg, ch)
			require.NoError(t, m.Start(t.Context()))

			msg := bus.OutboundMessage{Channel: "feishu", ChatID: "oc_1", Content: "hi"}
			m.publish(t, msg)
			if tt.wantDelivered {
				assert.Equal(t, msg, receive(t, ch.delivered, "delivery"))
			} else {
				de := receive(t, m.errors, "dispatch error")
				assert.Equal(t, "feishu", de.Channel)
				assert.Equal(t, "oc_1", de.ChatID)
				assert.Equal(t, tt.wantTries, de.Attempts)
				require.ErrorIs(t, de, tt.wantErr)
			}

			// The worker carries on with the next message.
			next := bus.OutboundMessage{Channel: "feishu", ChatID: "oc_1", Content: "next"}
			ch.mu.Lock()
			ch.sendErrs = nil
			ch.mu.Unlock()
			m.publish(t, next)
			assert.Equal(t, next, receive(t, ch.delivered, "next delivery"))

			m.stop(t)
			_, _, tries := ch.counts()
			assert.Equal(t, tt.wantTries+1, tries, "Send calls")
			none(t, m.errors, "other dispatch error")
		})
	}
}

func TestDispatchUnknownChannel(t *testing.T) {
	b := bus.New(4)
	alpha := newFake("alpha", b)
	m := newTestManager(t, b, fastRetry, alpha)
	require.NoError(t, m.Start(t.Context()))

	m.publish(t, bus.OutboundMessage{Channel: "nope", ChatID: "c1"})
	de := receive(t, m.errors, "dispatch error")
	require.ErrorIs(t, de, channels.ErrUnknownChannel)
	assert.Equal(t, "nope", de.Channel)
	assert.Equal(t, "c1", de.ChatID)
	assert.Zero(t, de.Attempts)
	assert.Contains(t, de.Error(), `"nope"`)
	assert.Contains(t, de.Error(), "alpha", "the error lists the known channels")

	// Dispatch goes on.
	m.publish(t, bus.OutboundMessage{Channel: "alpha", ChatID: "c2"})
	assert.Equal(t, "c2", receive(t, alpha.delivered, "delivery").ChatID)
}

func TestDispatchEndsWhenBusCloses(t *testing.T) {
	b := bus.New(4)
	alpha := newFake("alpha", b)
	m := newTestManager(t, b, fastRetry, alpha)
	require.NoError(t, m.Start(t.Context()))

	m.publish(t, bus.OutboundMessage{Channel: "alpha", ChatID: "c1"})
	require.NoError(t, b.Close())
	assert.Equal(t, "c1", receive(t, alpha.delivered, "delivery of what was queued before Close").ChatID)
	m.stop(t)
	none(t, m.errors, "dispatch error")
}

func TestManagerSend(t *testing.T) {
	errPerm := errors.New("chat not found")
	errBusy := errors.New("rate limited")
	tests := []struct {
		name         string
		channel      string
		sendErrs     []error
		retryBackoff time.Duration
		state        string // "started", "new" (never started) or "stopped"
		ctx          func(t *testing.T) context.Context
		wantErr      []error // errors.Is targets; nil for success
		wantAttempts int
		wantTries    int
	}{
		{name: "delivered", channel: "alpha", state: "started", wantTries: 1},
		{
			name: "retried then delivered", channel: "alpha", state: "started",
			sendErrs:  []error{channels.Temporary(errBusy)},
			wantTries: 2,
		},
		{
			name: "unknown channel", channel: "nope", state: "started",
			wantErr: []error{channels.ErrUnknownChannel},
		},
		{
			name: "permanent error", channel: "alpha", state: "started",
			sendErrs: []error{errPerm},
			wantErr:  []error{errPerm}, wantAttempts: 1, wantTries: 1,
		},
		{
			name: "never started", channel: "alpha", state: "new",
			wantErr: []error{channels.ErrNotRunning},
		},
		{
			name: "stopped", channel: "alpha", state: "stopped",
			wantErr: []error{channels.ErrNotRunning},
		},
		{
			name: "context ends during backoff", channel: "alpha", state: "started",
			sendErrs:     []error{channels.Temporary(errBusy)},
			retryBackoff: time.Hour, // only the context can end the wait
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return ctx
			},
			wantErr:      []error{errBusy, context.Canceled},
			wantAttempts: 1, wantTries: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(4)
			alpha := newFake("alpha", b)
			alpha.sendErrs = tt.sendErrs
			cfg := fastRetry
			if tt.retryBackoff > 0 {
				cfg.RetryBackoff, cfg.MaxBackoff = tt.retryBackoff, tt.retryBackoff
			}
			m := newTestManager(t, b, cfg, alpha)
			switch tt.state {
			case "started":
				require.NoError(t, m.Start(t.Context()))
			case "stopped":
				require.NoError(t, m.Start(t.Context()))
				m.stop(t)
			}
			ctx := t.Context()
			if tt.ctx != nil {
				ctx = tt.ctx(t)
			}

			msg := bus.OutboundMessage{Channel: tt.channel, ChatID: "c1", Content: "hi"}
			err := m.Send(ctx, msg)
			_, _, tries := alpha.counts()
			assert.Equal(t, tt.wantTries, tries, "Send calls")
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, []bus.OutboundMessage{msg}, alpha.sentMessages())
				return
			}
			var de *channels.DispatchError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tt.channel, de.Channel)
			assert.Equal(t, "c1", de.ChatID)
			assert.Equal(t, tt.wantAttempts, de.Attempts)
			for _, target := range tt.wantErr {
				assert.ErrorIs(t, err, target)
			}
			assert.Empty(t, alpha.sentMessages())
		})
	}
}
