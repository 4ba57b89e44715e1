package fsstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// recordingTarget fsyncs the inbox folder for real and counts the syncs.
type recordingTarget struct {
	dir   dirByPath
	syncs *atomic.Int32
}

func (r recordingTarget) syncNow() error {
	r.syncs.Add(1)
	return r.dir.syncNow()
}

// TestDeliverConcurrentLandsExactlyOnce: many goroutines deliver at once
// with fsync on, to one inbox and to several; every message is in its
// recipient's inbox exactly once, whole, nothing is left in tmp/, every
// inbox was synced, and each message was logged as sent once.
func TestDeliverConcurrentLandsExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, inboxes := range []int{1, 4} {
		t.Run(fmt.Sprintf("inboxes=%d", inboxes), func(t *testing.T) {
			t.Parallel()
			s, events := openMsgStore(t, func(o *Options) { o.NoSync = false; o.AuditLog = true })
			var syncs atomic.Int32
			s.inboxSyncs.target = func(inbox string) syncTarget {
				return recordingTarget{dir: dirByPath(inbox), syncs: &syncs}
			}
			const goroutines, each = 16, 12
			var (
				mu   sync.Mutex
				sent = map[string]string{} // id -> recipient
				wg   sync.WaitGroup
			)
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						to := fmt.Sprintf("rx%d", (g*each+i)%inboxes)
						m := newMsg(fmt.Sprintf("tx%02d", g), to, fmt.Sprintf("message %d of %d", i, g))
						if !assert.NoError(t, s.Deliver(context.Background(), m)) {
							return
						}
						mu.Lock()
						sent[m.ID] = to
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			require.Len(t, sent, goroutines*each)

			got := map[string]int{}
			for k := range inboxes {
				to := fmt.Sprintf("rx%d", k)
				assert.Empty(t, names(t, agentPath(s, to, tmpDir)), "staging files removed")
				for _, name := range names(t, agentPath(s, to, inboxDir)) {
					m, err := readMessage(filepath.Join(agentPath(s, to, inboxDir), name), 1<<20)
					require.NoError(t, err, "a whole message")
					assert.Equal(t, to, sent[m.ID], "in its recipient's inbox")
					assert.Equal(t, envelope.FileName(m), name)
					got[m.ID]++
				}
			}
			assert.Len(t, got, len(sent), "every message landed")
			for id, n := range got {
				assert.Equal(t, 1, n, "message %s landed once", id)
			}
			assert.GreaterOrEqual(t, int(syncs.Load()), inboxes, "every inbox synced")
			assert.Equal(t, len(sent), events.CountKind(driver.EventSent), "one sent event each")
		})
	}
}

// gateTarget holds its first sync until open is closed (sending on held,
// buffered, when it is reached), then lets it succeed; every later sync
// fails.
type gateTarget struct {
	held, open chan struct{}
	syncs      atomic.Int32
}

var errDiskGone = errors.New("disk gone")

func (g *gateTarget) syncNow() error {
	if g.syncs.Add(1) == 1 {
		g.held <- struct{}{}
		<-g.open
		return nil
	}
	return errDiskGone
}

// TestDeliverSyncFailureReachesEachCallerOfItsBatch: the Delivers that
// link into an inbox while its folder is being synced wait for the next
// sync together; when that one sync fails, every one of them gets the
// error, the Deliver served by the earlier sync does not, and a retry of
// a failed Deliver finds its message in place and succeeds once the disk
// does.
func TestDeliverSyncFailureReachesEachCallerOfItsBatch(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.NoSync = false })
	gate := &gateTarget{held: make(chan struct{}, 1), open: make(chan struct{})}
	s.inboxSyncs.target = func(string) syncTarget { return gate }
	ctx := testkit.Ctx(t)

	first := make(chan error, 1)
	go func() { first <- s.Deliver(ctx, newMsg("alice", "bob", "first")) }()
	testkit.Recv(t, gate.held, "the first sync")

	const batch = 8
	msgs := make([]*envelope.Message, batch)
	errs := make(chan error, batch)
	for i := range msgs {
		msgs[i] = newMsg("alice", "bob", fmt.Sprintf("batched %d", i))
		go func() { errs <- s.Deliver(ctx, msgs[i]) }()
	}
	group := s.inboxSyncs.group(agentPath(s, "bob", inboxDir)).commit
	require.Eventually(t, func() bool {
		group.mu.Lock()
		defer group.mu.Unlock()
		return len(group.done) == batch
	}, testkit.WaitLimit, time.Millisecond, "the batch forms while the first sync runs")

	close(gate.open)
	require.NoError(t, testkit.Recv(t, first, "the first Deliver"), "served by the sync that succeeded")
	for range batch {
		err := testkit.Recv(t, errs, "a batched Deliver")
		require.ErrorIs(t, err, errDiskGone, "each caller of the failed batch learns it")
		assert.ErrorContains(t, err, "sync inbox")
	}
	assert.EqualValues(t, 2, gate.syncs.Load(), "one sync for the whole batch")

	// The disk is back: a retry finds its message linked and is durable.
	s2, _ := openMsgStore(t, func(o *Options) { o.NoSync = false; o.Root = s.Root() })
	for _, m := range msgs {
		require.NoError(t, s2.Deliver(ctx, m))
	}
	assert.Len(t, names(t, agentPath(s, "bob", inboxDir)), batch+1, "each message once")
}
