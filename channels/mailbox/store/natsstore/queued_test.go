package natsstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestQueuedNotRedelivered: messages the inbox pulled ahead and has not
// handed out yet are kept from the server's redelivery while a long task
// runs, so each is handed out once and not marked redelivered, whatever
// its id (ids not of NewID's form are not deduplicated by the inbox).
func TestQueuedNotRedelivered(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	// AckWait is the server's deadline for the inbox's keep-alive (every
	// third of it): a machine that stalls the process longer redelivers
	// whatever the inbox does, so it scales with the machine's load.
	opts.AckWait, opts.Prefetch = testkit.Scaled(time.Second), 2
	be := openWith(t, opts)
	for i := range 6 {
		m := storetest.NewMessage("alice", "bob", fmt.Sprint(i))
		m.ID = fmt.Sprintf("external-%d", i)
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	}
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	// Three AckWaits pass while the first task runs (see
	// TestLongTaskNotRedelivered); the sentinel comes after them.
	timer := time.NewTimer(3 * opts.AckWait)
	<-timer.C
	sentinel := storetest.NewMessage("alice", "bob", "sentinel")
	require.NoError(t, be.Deliver(testkit.Ctx(t), sentinel))
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	got := map[string]int{d.Message.ID: 1}
	for {
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
		if d.Message.ID == sentinel.ID {
			break
		}
		got[d.Message.ID]++
		assert.False(t, d.Redelivered, "%s was handed out for the first time", d.Message.ID)
	}
	for i := range 6 {
		assert.Equal(t, 1, got[fmt.Sprintf("external-%d", i)], "external-%d handed out once", i)
	}
}
