package mailbox_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// What the channel offers the agent loop, through the interfaces the loop
// declares (host finds them by type assertion).
var (
	_ agentloop.ToolChannel     = (*mailbox.Channel)(nil)
	_ agentloop.HookChannel     = (*mailbox.Channel)(nil)
	_ agentloop.ApprovalChannel = (*mailbox.Channel)(nil)
	_ agentloop.TaskChannel     = (*mailbox.Channel)(nil)
	_ agentloop.IdentityChannel = (*mailbox.Channel)(nil)
)

func TestNewRejectsBadConfig(t *testing.T) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID = "../etc"
	_, err := mailbox.New(cfg, bus.New(1), mailbox.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "channels.mailbox.agentId")
}

func TestStartTwiceRefused(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	assert.Error(t, a.Start(context.Background()), "already running")

	b, err := mailbox.New(e.config("coder"), bus.New(1), mailbox.Options{Backend: e.st})
	require.NoError(t, err)
	err = b.Start(context.Background())
	assert.ErrorIs(t, err, store.ErrInboxBusy, "one inbox, one owner")
}

func TestStartOpensConfiguredBackend(t *testing.T) {
	root := t.TempDir() + "/mailboxes"
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = "coder", root, false
	ch, err := mailbox.New(cfg, bus.New(1), mailbox.Options{})
	require.NoError(t, err)
	assert.Nil(t, ch.Backend())
	_, err = ch.Agents(context.Background(), false)
	assert.ErrorIs(t, err, mailbox.ErrNotRunning)
	require.NoError(t, ch.Start(context.Background()))
	agents, err := ch.Agents(context.Background(), true)
	require.NoError(t, err)
	require.Len(t, agents, 1)
	assert.Equal(t, "coder", agents[0].AgentID)
	require.NoError(t, ch.Stop(context.Background()))
	assert.Nil(t, ch.Backend(), "an owned store is closed on Stop")
}

// pendingIDs lists the ids of the messages waiting in agent's inbox.
func (e *env) pendingIDs(t *testing.T, agent string) []string {
	t.Helper()
	var ids []string
	require.NoError(t, e.store.Pending(context.Background(), agent, func(_ string, m *envelope.Message, err error) bool {
		require.NoError(t, err)
		ids = append(ids, m.ID)
		return true
	}))
	return ids
}

// After StopReceiving, what arrives stays in the inbox for the next start,
// while the channel still sends and the task in progress still ends (and
// its request is acknowledged then).
func TestStopReceivingLeavesNewMessagesInTheInbox(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "write sort")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	assert.Equal(t, "write sort", a.consume(t).Content)
	before := msg("boss", "coder", envelope.TypeMessage, "before")
	e.deliver(t, before)
	assert.Equal(t, "before", a.consume(t).Content)
	e.waitEvent(t, store.EventProcessed, before.ID)

	require.NoError(t, a.StopReceiving(context.Background()))
	require.NoError(t, a.StopReceiving(context.Background()), "twice is fine")
	after := msg("boss", "coder", envelope.TypeMessage, "after")
	e.deliver(t, after)
	late := task("boss", "coder", "t2", "count words")
	e.deliver(t, late)
	assert.Equal(t, []string{after.ID, late.ID}, e.pendingIDs(t, "coder"),
		"the receive loop has ended: nothing takes them")

	_, err := a.FinishTask(context.Background(), "t1", envelope.StateCompleted, "func sort() {}", "", nil)
	require.NoError(t, err)
	assert.Equal(t, "func sort() {}", boss.expectUpdate(t, "t1", envelope.StateCompleted).Text())
	e.waitEvent(t, store.EventProcessed, req.ID)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: "mailbox", ChatID: "boss", Content: "bye"}))
	boss.expect(t, "a message sent after StopReceiving", func(m *envelope.Message) bool { return m.Text() == "bye" })

	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
	assert.Equal(t, 0, a.bus.InboundDepth(), "nothing was published after StopReceiving")
	assert.Equal(t, []string{after.ID, late.ID}, e.pendingIDs(t, "coder"))

	again := e.startAgent(t, "coder")
	assert.Equal(t, "after", again.consume(t).Content, "the next start takes them")
	assert.Equal(t, "count words", again.consume(t).Content)
}

func TestStopReceivingBeforeStartOrAfterStop(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
	require.NoError(t, a.StopReceiving(ctx), "a stopped channel has nothing to stop")
}

// A state record that does not decode (the tasks an agent delegated, the
// replies it awaits) does not keep the agent from starting and receiving:
// it is set aside as <key>-corrupt, the agent starts without it, and a
// warning names the copy.
func TestCorruptStateRecordIsSetAsideAndTheAgentStarts(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"sent-tasks", "awaited-replies"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			state := filepath.Join(e.root, "critic", "state")
			require.NoError(t, os.MkdirAll(state, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(state, key+".json"), []byte("{garbage"), 0o600))
			logs := &testkit.Buffer{}
			cfg := e.config("critic")
			b := bus.New(8)
			c, err := mailbox.New(cfg, b, mailbox.Options{Backend: e.st, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			require.NoError(t, err)
			require.NoError(t, c.Start(context.Background()), "a corrupt record does not stop the agent")
			t.Cleanup(func() { _ = c.Stop(testkit.Ctx(t)); b.Close() })

			copied, err := os.ReadFile(filepath.Join(state, key+"-corrupt.json"))
			require.NoError(t, err)
			assert.Equal(t, "{garbage", string(copied), "the record is kept aside as it was")
			assert.Contains(t, logs.String(), "state record corrupt: set aside, starting without it")
			assert.Contains(t, logs.String(), key+"-corrupt")

			e.deliver(t, msg("boss", "critic", "message", "still here"))
			a := &member{Channel: c, bus: b}
			assert.Equal(t, "still here", a.consume(t).Content, "the agent receives")
		})
	}
}
