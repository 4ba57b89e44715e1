package natsstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestSweepRetriesHistoryReadAfterCancel: a first sweep whose context is
// already cancelled cannot read what the agent handled before this store
// opened; the next sweep reads it again and archives those messages.
func TestSweepRetriesHistoryReadAfterCancel(t *testing.T) {
	ts := sharedServer(t)
	m := taskMessage("alice", "bob", "sort 3 1 2", "task-1")
	earlier := ts.open(t, nil)
	require.NoError(t, earlier.Deliver(testkit.Ctx(t), m))
	in, err := earlier.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, earlier.Close())

	be := ts.open(t, nil)
	in, err = be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	sw := in.(driver.TaskSweeper)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	n, _ := sw.SweepTask(cancelled, "task-1")
	assert.Zero(t, n)
	n, err = sw.SweepTask(testkit.Ctx(t), "task-1")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the message handled in the earlier run is archived")
	assert.Equal(t, driver.BoxArchive, browseAll(t, be)[m.ID].Box)
}
