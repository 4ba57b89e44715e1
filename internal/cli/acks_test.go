package cli

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func TestAckLog(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := newAckLog(2)
		l.observe(store.Event{Kind: store.EventClaimed, MessageID: "m1"})
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.False(t, l.wait(ctx, "m1"), "a claim is not an acknowledgement")

		done := make(chan bool)
		go func() { done <- l.wait(t.Context(), "m1") }()
		synctest.Wait()
		l.observe(store.Event{Kind: store.EventProcessed, MessageID: "m1"})
		assert.True(t, <-done, "woken by the event")

		for _, kind := range []store.EventKind{store.EventQuarantined, store.EventRefused, store.EventDuplicate} {
			l.observe(store.Event{Kind: kind, MessageID: string(kind)})
			assert.True(t, l.wait(t.Context(), string(kind)), "%s settles a message", kind)
		}
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.False(t, l.wait(ctx, "m1"), "forgotten beyond the size")
	})
}
