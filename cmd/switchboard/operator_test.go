package main_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The operator's commands on the folder store: dead, redeliver (and
// --discard), cancel, archive and approvals.
func TestOperatorCommandsFS(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	st, err := fsstore.Open(fsstore.Options{Root: s.root, NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	operatorCommands(t, s, store.New(st, nil), true)
}

// The same commands on NATS.
func TestOperatorCommandsNATS(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	operatorCommands(t, w.sandbox, w.open(), false)
}

// quarantined delivers a message from "stranger" to agent and has agent's
// inbox set it aside; it returns the message.
func quarantined(t *testing.T, be *store.Store, agent, text string) *envelope.Message {
	t.Helper()
	ctx := testkit.Ctx(t)
	msg := &envelope.Message{ID: envelope.NewID(), From: "stranger", To: agent, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 2, Trace: []string{"stranger"},
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}
	require.NoError(t, be.Deliver(ctx, msg))
	in, err := be.OpenInbox(ctx, agent)
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, msg.ID, d.Message.ID)
	require.NoError(t, in.Quarantine(ctx, d, `sender "stranger" is not allowed`))
	return msg
}

// operatorCommands runs some thirty commands: each operation of the test
// on the store has a limit of its own (testkit.Ctx), never one for all.
func operatorCommands(t *testing.T, s *sandbox, be *store.Store, fs bool) {
	assert.Contains(t, s.ok("dead"), "nothing set aside")

	// dead lists, redeliver puts back a copy that names the original.
	msg := quarantined(t, be, "coder", "hello from outside")
	lines := decodeLines(t, s.ok("dead", "--json"))
	require.Len(t, lines, 1)
	assert.Equal(t, "coder", lines[0]["agent"])
	assert.Equal(t, msg.ID, lines[0]["id"])
	assert.Contains(t, lines[0]["reason"], "not allowed")
	assert.Contains(t, s.ok("dead", "coder"), "coder/"+lines[0]["ref"].(string))
	assert.Empty(t, strings.TrimSpace(s.ok("dead", "critic", "--json")))
	assert.Contains(t, s.ok("redeliver", msg.ID), "redelivered coder/")
	assert.Empty(t, strings.TrimSpace(s.ok("dead", "--json")), "no longer set aside")
	in, err := be.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, msg.ID, d.Message.Metadata[store.MetaRedeliveredFrom], "a copy that names the original")
	assert.Equal(t, "hello from outside", d.Message.Content.Parts[0].Text)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, in.Close())

	other := quarantined(t, be, "coder", "drop me")
	ref := decodeLines(t, s.ok("dead", "--json"))[0]["ref"].(string)
	assert.Contains(t, s.ok("redeliver", "coder/"+ref, "--discard"), "discarded coder/"+ref)
	assertOneLineError(t, s.run("redeliver", other.ID), 1, "no such set-aside message")

	// cancel: the worker and the delegator each get a task_update canceled.
	s.ok("send", "--from", "lead", "--to", "coder", "--type", "task", "--task-id", "t1", "--text", "build it")
	assert.Contains(t, s.ok("cancel", "t1", "--reason", "wrong repository"), "canceled task t1 (lead → coder)")
	var updates []string
	require.NoError(t, be.Browse(testkit.Ctx(t), func(st store.Stored) bool {
		if m := st.Message; m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.ID == "t1" {
			assert.Equal(t, envelope.StateCanceled, m.Task.State)
			assert.Equal(t, "wrong repository", m.Task.Reason)
			updates = append(updates, m.From+"→"+m.To)
		}
		return true
	}))
	assert.ElementsMatch(t, []string{"lead→coder", "coder→lead"}, updates)
	assertOneLineError(t, s.run("cancel", "t1"), 1, "the task has ended already")
	assertOneLineError(t, s.run("cancel", "t-none"), 1, "no task t-none")

	// archive is refused while a reply is owed.
	req := s.sendID("--from", "lead", "--to", "coder", "--text", "which branch?", "--expects-reply")
	assertOneLineError(t, s.run("archive", req), 1, "a reply is owed")
	s.ok("send", "--from", "coder", "--to", "lead", "--reply-to", req, "--text", "main")
	if fs {
		assert.Contains(t, s.ok("archive", req), "answered; coder was not running, and it is now handled")
	} else {
		assertOneLineError(t, s.run("archive", req), 1, "coder holds it")
	}
	assertOneLineError(t, s.run("archive", "nope"), 1, "no request with that id")

	// approvals: listed from the store, decided once.
	ab := be.Approvals()
	now := time.Now()
	ap := agent.Approval{ID: envelope.NewID(), Agent: "coder", Kind: "tool", Action: "run tool deploy",
		Detail: `{"env":"prod"}`, Channel: "feishu", ChatID: "oc_1", Created: now, Deadline: now.Add(time.Hour)}
	require.NoError(t, ab.PutApproval(testkit.Ctx(t), ap))
	table := s.ok("approvals")
	assert.Contains(t, table, ap.ID)
	assert.Contains(t, table, "run tool deploy")
	assert.Contains(t, table, "feishu:oc_1")
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(s.ok("approvals", "--json")), &line))
	assert.Equal(t, "waiting", line["state"])
	assert.Contains(t, s.ok("approvals", "approve", ap.ID), "approved: run tool deploy for coder")
	got, err := ab.GetApproval(testkit.Ctx(t), ap.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision)
	assert.True(t, got.Decision.Allow)
	assert.Equal(t, agent.Operator, got.Decision.By)
	assertOneLineError(t, s.run("approvals", "deny", ap.ID), 1, "decided already (approved by operator)")
	assertOneLineError(t, s.run("approvals", "deny", "no-such-id"), 1, "no such approval")
	assertOneLineError(t, s.run("approvals", "approve"), 2, "missing argument ID")
}
