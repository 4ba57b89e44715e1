package fsstore

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// countingTarget counts its syncs and fails them with err.
type countingTarget struct {
	syncs atomic.Int32
	err   error
}

func (c *countingTarget) syncNow() error {
	c.syncs.Add(1)
	return c.err
}

// slowCommit is a group commit whose window never ends by itself, so that
// only the batch size and a waiter close a batch.
func slowCommit(report func([]driver.Event)) *groupCommit {
	g := newGroupCommit(report)
	g.window = time.Hour
	return g
}

// TestGroupCommitKeepsPipelinedBatchOpenUntilWaiter: pipelined changes
// wait in the open batch; the first change someone waits for commits them
// all with one sync and one report of their events.
func TestGroupCommitKeepsPipelinedBatchOpenUntilWaiter(t *testing.T) {
	t.Parallel()
	reports := make(chan []driver.Event, 4)
	g := slowCommit(func(evs []driver.Event) { reports <- evs })
	target := &countingTarget{}
	done := make(chan error, 11)
	for i := range 10 {
		ev := driver.Event{Kind: driver.EventProcessed, MessageID: string(rune('a' + i))}
		g.submit(false, &ev, func(err error) { done <- err }, target)
	}
	assert.Empty(t, done, "a pipelined batch waits for its window")
	g.submit(true, nil, func(err error) { done <- err }, target)
	for range 11 {
		require.NoError(t, testkit.Recv(t, done, "a commit"))
	}
	assert.EqualValues(t, 1, target.syncs.Load(), "one sync for the batch")
	assert.Len(t, testkit.Recv(t, reports, "the batch's events"), 10)
	g.flush()
}

// TestGroupCommitClosesFullBatch: commitBatch pipelined changes close
// their batch without a waiter or the window.
func TestGroupCommitClosesFullBatch(t *testing.T) {
	t.Parallel()
	g := slowCommit(func([]driver.Event) {})
	target := &countingTarget{err: errors.New("disk gone")}
	done := make(chan error, commitBatch)
	for range commitBatch {
		g.submit(false, nil, func(err error) { done <- err }, target)
	}
	for range commitBatch {
		assert.ErrorContains(t, testkit.Recv(t, done, "a commit"), "disk gone", "each change learns the sync failed")
	}
	assert.EqualValues(t, 1, target.syncs.Load())
}

// TestGroupCommitFlushClosesWindow: flush (Close) commits the open batch
// at once and returns when it is durable.
func TestGroupCommitFlushClosesWindow(t *testing.T) {
	t.Parallel()
	g := slowCommit(func([]driver.Event) {})
	target := &countingTarget{}
	var durable atomic.Bool
	g.submit(false, nil, func(error) { durable.Store(true) }, target)
	g.flush()
	assert.True(t, durable.Load(), "flush returns once the batch is committed")
	assert.EqualValues(t, 1, target.syncs.Load())
}

// TestGroupCommitWindowEnds: with the default window a lone pipelined
// change is committed without anyone asking.
func TestGroupCommitWindowEnds(t *testing.T) {
	t.Parallel()
	g := newGroupCommit(func([]driver.Event) {})
	target := &countingTarget{}
	done := make(chan error, 1)
	g.submit(false, nil, func(err error) { done <- err }, target)
	require.NoError(t, testkit.Recv(t, done, "the commit at the end of the window"))
	assert.EqualValues(t, 1, target.syncs.Load())
}
