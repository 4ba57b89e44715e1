package natsstore_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testkit.Buffer collects what a store logs.

// openAs opens a store on url as user (testdata/agents.conf), acting for
// the agent of that name with the audit log on, as the mailbox opens it,
// logging to log.
func openAs(t *testing.T, url, user, password string, log *testkit.Buffer) *natsstore.Store {
	t.Helper()
	nc, cfg := connectAs(t, url, user, password)
	o := cfg.Options(nc)
	o.OwnConn, o.AuditLog, o.Agent = true, true, user
	o.Logger = slog.New(slog.NewTextHandler(log, nil))
	return openWith(t, o)
}

// TestPerAgentHistory: with per-agent credentials an agent still sends,
// receives, writes its own audit entries and sweeps its ended tasks,
// reading only its own part of the history (the messages sent to it);
// reading the whole history (threads, the audit log) is the
// administrator's.
func TestPerAgentHistory(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	var log testkit.Buffer
	admin := openAs(t, url, "admin", "admin-secret", &log) // creates the streams
	researcher := openAs(t, url, "researcher", "researcher-secret", &log)
	coder := openAs(t, url, "coder", "coder-secret", &log)

	task := taskMessage("researcher", "coder", "sort 3 1 2", "t-1")
	require.NoError(t, researcher.Deliver(testkit.Ctx(t), task))
	in, err := coder.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, coder.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "coder",
		MessageID: task.ID, From: task.From}))
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, in.Close())
	require.NoError(t, coder.Close())

	// The task ends in the agent's next run, which knows of the message
	// only through its part of the history.
	coder = openAs(t, url, "coder", "coder-secret", &log)
	in, err = coder.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	defer in.Close()
	n, err := in.(driver.TaskSweeper).SweepTask(testkit.Ctx(t), "t-1")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "found in the agent's own part of the history")
	require.NoError(t, in.Close())
	require.NoError(t, coder.Close())
	// The asker records that coder owes a reply: an entry about coder,
	// written on researcher's own subject.
	require.NoError(t, researcher.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventOverdue, Agent: "coder",
		From: "researcher", MessageID: "question-1"}))
	require.NoError(t, researcher.Close())

	got := browseAll(t, admin)
	require.Contains(t, got, task.ID)
	assert.Equal(t, driver.BoxArchive, got[task.ID].Box)
	var kinds []driver.EventKind
	var overdue []driver.Event
	for _, ev := range readAudit(t, admin) {
		switch ev.MessageID {
		case task.ID:
			kinds = append(kinds, ev.Kind)
		case "question-1":
			overdue = append(overdue, ev)
		}
	}
	assert.Equal(t, []driver.EventKind{driver.EventSent, driver.EventClaimed, driver.EventDelivered,
		driver.EventProcessed, driver.EventSwept}, kinds, "each agent wrote its own entries")
	require.Len(t, overdue, 1)
	assert.Equal(t, "coder", overdue[0].Agent)
	assert.NotContains(t, log.String(), "level=WARN", "nothing was refused")

	// An agent cannot read the whole history: a refused request gets no
	// answer, so each of these fails on its deadline.
	coder = openAs(t, url, "coder", "coder-secret", &log)
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	assert.Error(t, coder.Browse(short(), func(driver.Stored) bool { return true }), "browse")
	assert.Error(t, coder.ReadAudit(short(), func(driver.Event) bool { return true }), "read the audit log")
	spy, _ := connectAs(t, url, "coder", "coder-secret")
	defer spy.Close()
	_, err = spy.RequestWithContext(short(), "$JS.API.CONSUMER.CREATE.MAILBOX_HISTORY.sweep-coder.mailbox.researcher.>",
		[]byte(`{"stream_name":"MAILBOX_HISTORY","config":{"name":"sweep-coder","filter_subject":"mailbox.researcher.>","ack_policy":"none"}}`))
	assert.Error(t, err, "read another agent's part of the history")
}

// TestRePublishRefused: an agent that may not change a main stream made
// without the republish (by an older version) still opens the store,
// with a warning that says what is missing; messages are delivered as
// before.
func TestRePublishRefused(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	nc, _ := connectAs(t, url, "admin", "admin-secret")
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var log testkit.Buffer
	require.NoError(t, openAs(t, url, "admin", "admin-secret", &log).Close()) // the streams and buckets
	stream, err := js.Stream(testkit.Ctx(t), "MAILBOX")
	require.NoError(t, err)
	old := stream.CachedInfo().Config
	old.RePublish = nil // as an older version made it
	_, err = js.UpdateStream(testkit.Ctx(t), old)
	require.NoError(t, err)

	coder := openAs(t, url, "coder", "coder-secret", &log)
	assert.Contains(t, log.String(), "stream does not copy its messages to the history stream")
	stream, err = js.Stream(testkit.Ctx(t), "MAILBOX")
	require.NoError(t, err)
	assert.Nil(t, stream.CachedInfo().Config.RePublish, "left as it was")

	m := taskMessage("coder", "coder", "note to self", "t-2")
	require.NoError(t, coder.Deliver(testkit.Ctx(t), m))
	in, err := coder.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, m.ID, d.Message.ID)
}
