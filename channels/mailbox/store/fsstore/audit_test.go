package fsstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func auditEntries(t *testing.T, s *Store, f audit.Filter) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	if s.audit != nil {
		require.NoError(t, s.audit.Flush()) // the lines this process queued
	}
	_, err := audit.Read(context.Background(), s.Root(), f, func(e audit.Entry) bool {
		out = append(out, e)
		return true
	})
	require.NoError(t, err)
	return out
}

// With AuditLog on, the store's events land in <root>/manifest.jsonl, with
// thread and task, in the order they happened; Record adds the channel's.
func TestAuditLogRecordsTheStoresEvents(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.AuditLog = true })
	in := openTestInbox(t, s, "coder")
	m := newMsg("researcher", "coder", "hi")
	m.ThreadID, m.TaskID = "thread-1", "task_1"
	deliver(t, s, m)
	writeRaw(t, agentPath(s, "coder", "inbox"), "0_bad.msg.json", []byte("{")) // sorts first
	d := next(t, in)
	require.NoError(t, s.Record(context.Background(), driver.Event{Kind: driver.EventDelivered, Agent: "coder", MessageID: m.ID}))
	ack(t, in, d)

	got := auditEntries(t, s, audit.Filter{})
	var kinds []driver.EventKind
	for _, e := range got {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []driver.EventKind{driver.EventSent, driver.EventQuarantined, driver.EventClaimed,
		driver.EventDelivered, driver.EventProcessed}, kinds)
	for _, e := range []audit.Entry{got[0], got[2]} {
		assert.Equal(t, m.ID, e.MessageID)
		assert.Equal(t, "researcher", e.From)
		assert.Equal(t, "thread-1", e.ThreadID)
		assert.Equal(t, "task_1", e.TaskID)
		assert.False(t, e.Time.IsZero())
	}
	assert.NotEmpty(t, got[1].Reason)
	assert.Len(t, events.All(), 5, "the observer sees the same events")

	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Record(context.Background(), driver.Event{Kind: driver.EventSent}), driver.ErrClosed)
}

func TestAuditLogOffByDefault(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	deliver(t, s, newMsg("researcher", "coder", "hi"))
	assert.Empty(t, auditEntries(t, s, audit.Filter{}))
	assert.NotContains(t, names(t, s.Root()), audit.FileName)
}

// A store rotates the log at AuditMaxBytes.
func TestAuditLogRotates(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.AuditLog, o.AuditMaxBytes, o.AuditKeep = true, 2000, 50 })
	for range 30 {
		deliver(t, s, newMsg("researcher", "coder", "hi"))
	}
	files, err := audit.Files(s.Root())
	require.NoError(t, err)
	assert.Greater(t, len(files), 2)
	assert.Len(t, auditEntries(t, s, audit.Filter{Kinds: []driver.EventKind{driver.EventSent}}), 30)
}

// A receiver that claims a message the moment it appears (here through a
// second store on the root, with its own log writer, as another process
// would) never logs the claim before the sender's sent line.
func TestAuditLogSentBeforeClaimed(t *testing.T) {
	t.Parallel()
	sender, _ := openMsgStore(t, func(o *Options) { o.AuditLog, o.NoSync = true, false })
	receiver, err := Open(Options{Root: sender.Root(), NoSync: true, PollInterval: time.Hour, AuditLog: true})
	require.NoError(t, err)
	t.Cleanup(func() { receiver.Close() })
	in := openTestInbox(t, receiver, "coder")
	const n = 50
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
			d, err := in.Next(ctx)
			cancel()
			if !assert.NoError(t, err) {
				return
			}
			assert.NoError(t, in.Ack(context.Background(), d))
		}
	}()
	for range n {
		deliver(t, sender, newMsg("researcher", "coder", "hi"))
	}
	<-done

	seen := map[string]audit.Entry{}
	for _, e := range auditEntries(t, sender, audit.Filter{Kinds: []driver.EventKind{driver.EventSent, driver.EventClaimed}}) {
		if e.Kind == driver.EventClaimed {
			sent := seen[e.MessageID]
			assert.Equal(t, driver.EventSent, sent.Kind, "claim of %s logged before its sent line", e.MessageID)
		}
		seen[e.MessageID] = e
	}
	assert.Len(t, seen, n)
}
