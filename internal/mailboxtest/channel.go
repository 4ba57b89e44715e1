package mailboxtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Run runs the channel suite as subtests of t, on the stores f makes;
// features are those the backend declares to storetest.Run.
func Run(t *testing.T, f storetest.Factory, features storetest.Features) {
	t.Helper()
	s := &suite{f: f, feat: features}
	t.Run("MessageToBus", testkit.Parallel(s.testChannelMessage))
	t.Run("ReplyIsNotALoop", testkit.Parallel(s.testChannelReply))
	t.Run("TaskLifecycleAndCallback", testkit.Parallel(s.testChannelTask))
	t.Run("ForgedCallbackIgnored", testkit.Parallel(s.testChannelForgedCallback))
	t.Run("AllowFrom", testkit.Parallel(s.testChannelAllowFrom))
	t.Run("Loop", testkit.Parallel(s.testChannelLoop))
	t.Run("Capacity", testkit.Parallel(s.testChannelCapacity))
	t.Run("Presence", testkit.Parallel(s.testChannelPresence))
	t.Run("TaskRedeliveredAfterRestart", testkit.Parallel(s.testChannelRestart))
	t.Run("OrderPerSender", testkit.Parallel(s.testChannelOrder))
	t.Run("DuplicateHandedOnce", testkit.Parallel(s.testChannelDuplicate))
	t.Run("Thread", testkit.Parallel(s.testChannelThread))
	t.Run("RepliesOwed", testkit.Parallel(s.testChannelRepliesOwed))
	t.Run("ReplyStoredElsewhere", testkit.Parallel(s.testChannelReplyElsewhere))
	t.Run("OverdueReply", testkit.Parallel(s.testChannelOverdue))
	t.Run("TaskEndArchived", testkit.Parallel(s.testChannelTaskSwept))
	t.Run("AuditTrail", testkit.Parallel(s.testChannelAuditTrail))
	t.Run("Broadcast", testkit.Parallel(s.testChannelBroadcast))
	t.Run("GroupTargets", testkit.Parallel(s.testChannelGroups))
	t.Run("UnacceptedTaskReoffered", testkit.Parallel(s.testChannelUnacceptedReoffered))
	t.Run("UnacceptedDirectTaskWaits", testkit.Parallel(s.testChannelUnacceptedDirectWaits))
	t.Run("LostWorkerTaskReoffered", testkit.Parallel(s.testChannelLostWorkerReoffered))
	t.Run("LostWorkerTaskFailed", testkit.Parallel(s.testChannelLostWorkerFailed))
	t.Run("UsageRecorded", testkit.Parallel(s.testChannelUsageRecorded))
	t.Run("ForgedSenderSetAside", testkit.Parallel(s.testChannelForgedSender))
	t.Run("UnsignedMarkedUnverified", testkit.Parallel(s.testChannelUnsigned))
	t.Run("KeyChangeRefusedUntilTrusted", testkit.Parallel(s.testChannelKeyChange))
	t.Run("OperatorKeyVouches", testkit.Parallel(s.testChannelOperatorKey))
}

// agent is one running mailbox channel with its own bus and backend.
type agent struct {
	ch     *mailbox.Channel
	bus    *bus.Bus
	be     *store.Store
	events *testkit.Events
}

// startAgent starts a mailbox channel for id on a new backend of w.
func (w *world) startAgent(t *testing.T, id string, tune func(*mailbox.Config)) *agent {
	t.Helper()
	ev := testkit.NewEvents()
	be := w.open(t, ev.Observe)
	return w.startOn(t, be, ev, id, tune)
}

// startClocked starts a mailbox channel for id on a new backend of w,
// with clk as the channel's clock.
func (w *world) startClocked(t *testing.T, id string, clk clock.Clock, tune func(*mailbox.Config)) *agent {
	t.Helper()
	ev := testkit.NewEvents()
	return w.startWith(t, w.open(t, ev.Observe), ev, id, tune, clk)
}

// startOn starts a mailbox channel for id on be.
func (w *world) startOn(t *testing.T, be *store.Store, ev *testkit.Events, id string, tune func(*mailbox.Config)) *agent {
	t.Helper()
	return w.startWith(t, be, ev, id, tune, nil)
}

// startWith starts a mailbox channel for id on be, with clock clk (nil:
// the real one).
func (w *world) startWith(t *testing.T, be *store.Store, ev *testkit.Events, id string, tune func(*mailbox.Config), clk clock.Clock) *agent {
	t.Helper()
	cfg := mailbox.DefaultConfig()
	cfg.Enabled, cfg.AgentID, cfg.MailboxesRoot = true, id, "unused-with-an-explicit-backend"
	cfg.KeyFile = w.keySource(be, id).File
	if tune != nil {
		tune(&cfg)
	}
	b := bus.New(64)
	ch, err := mailbox.New(cfg, b, mailbox.Options{Backend: be, Clock: clk})
	require.NoError(t, err)
	require.NoError(t, ch.Start(testkit.Ctx(t)))
	a := &agent{ch: ch, bus: b, be: be, events: ev}
	t.Cleanup(func() { a.stop(t) })
	return a
}

// stop stops the channel (a no-op when stopped).
func (a *agent) stop(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), testkit.WaitLimit)
	defer cancel()
	if err := a.ch.Stop(ctx); err != nil {
		t.Errorf("stop %s: %v", a.ch.AgentID(), err)
	}
}

// recv returns the next inbound message on the agent's bus, finished
// with (bus.InboundMessage.Done), as an agent that handled it at once.
func (a *agent) recv(t *testing.T) bus.InboundMessage {
	t.Helper()
	in, err := a.bus.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err, "inbound message for %s", a.ch.AgentID())
	in.Done()
	return in
}

// post sends req from the agent or fails the test.
func (a *agent) post(t *testing.T, req route.Request) string {
	t.Helper()
	m, err := a.ch.Post(testkit.Ctx(t), req)
	require.NoError(t, err)
	return m.ID
}

// busReply is the agent loop's answer to an inbound message.
func busReply(to, text string, md map[string]any) bus.OutboundMessage {
	return bus.OutboundMessage{Channel: mailbox.ChannelName, ChatID: to, Content: text, Metadata: md}
}

// meta returns the mailbox metadata of an inbound message.
func metaOf(t *testing.T, in bus.InboundMessage) *meta.Meta {
	t.Helper()
	m, ok := meta.Of(in.Metadata)
	require.True(t, ok, "inbound message without mailbox metadata: %+v", in)
	return m
}
