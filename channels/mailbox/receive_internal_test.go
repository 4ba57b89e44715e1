package mailbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestReceiveLoopTakesNothingOnceStopping: cancelling the channel's
// context closes its Done before the cancel reaches intake, its child. In
// that moment the receive loop must not claim another message, which no
// one would be handed (recv --count 1 was left holding one claim too
// many, now and then).
func TestReceiveLoopTakesNothingOnceStopping(t *testing.T) {
	t.Parallel()
	st := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	m := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "worker", Trace: []string{"lead"},
		Type: envelope.TypeMessage, Timestamp: envelope.NewTime(time.Now()), TTL: 3}
	m.Content.Parts = []envelope.Part{envelope.TextPart("waiting")}
	require.NoError(t, st.Deliver(ctx, m))
	in, err := st.OpenInbox(ctx, "worker")
	require.NoError(t, err)

	stopping, cancel := context.WithCancel(ctx)
	cancel()
	intake := ctx // the moment before the cancel reaches it
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&Channel{inbox: in}).receiveLoop(stopping, intake)
	}()
	select {
	case <-done:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the receive loop did not return once its context ended")
	}

	next, cancelNext := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancelNext()
	d, err := in.Next(next)
	require.NoError(t, err, "the message still waits")
	require.Equal(t, m.ID, d.Message.ID)
	require.False(t, d.Redelivered, "it was never handed out")
}
