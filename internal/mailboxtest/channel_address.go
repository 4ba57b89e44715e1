package mailboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// team starts on w: lead (role planner, at most 3 recipients per send),
// coder-1 (capability code, role dev, 1 task slot), coder-2 (code and
// review, role dev, 3 slots) and reviewer (review, role reviewer, 1 slot),
// all running; and registers coder-3 (code, 5 slots), whose last heartbeat
// is an hour old: offline.
func (w *world) team(t *testing.T) map[string]*agent {
	t.Helper()
	with := func(caps, roles []string, slots int) func(*mailbox.Config) {
		return func(c *mailbox.Config) { c.Capabilities, c.Roles, c.MaxConcurrentTasks = caps, roles, slots }
	}
	team := map[string]*agent{
		"lead":     w.startAgent(t, "lead", func(c *mailbox.Config) { c.Roles, c.MaxFanout = []string{"planner"}, 3 }),
		"coder-1":  w.startAgent(t, "coder-1", with([]string{"code"}, []string{"dev"}, 1)),
		"coder-2":  w.startAgent(t, "coder-2", with([]string{"code", "review"}, []string{"dev"}, 3)),
		"reviewer": w.startAgent(t, "reviewer", with([]string{"review"}, []string{"reviewer"}, 1)),
	}
	old := envelope.NewTime(time.Now().Add(-time.Hour))
	_, err := w.open(t, nil).UpdateCard(testkit.Ctx(t), "coder-3", func(c *envelope.Card) {
		*c = envelope.Card{AgentID: "coder-3", Capabilities: []string{"code"}, Status: envelope.StatusIdle,
			MaxConcurrentTasks: 5, RegisteredAt: old, LastHeartbeat: old}
	})
	require.NoError(t, err)
	return team
}

// recipients returns whom a fan-out sent to, in order.
func recipients(out route.Fanout) []string {
	var ids []string
	for _, m := range out.Sent {
		ids = append(ids, m.To)
	}
	return ids
}

// expectOnly checks that the next messages on each running agent's bus
// are the texts in want[agent], in order, and nothing else: a direct
// message sent after them comes next.
func expectOnly(t *testing.T, from *agent, team map[string]*agent, want map[string][]string) {
	t.Helper()
	for id, texts := range want {
		a, ok := team[id]
		if !ok {
			continue
		}
		for _, text := range texts {
			assert.Equal(t, text, a.recv(t).Content, "%s's next message", id)
		}
		end := from.post(t, route.Request{To: id, Text: "end"})
		assert.Equal(t, end, metaOf(t, a.recv(t)).MessageID, "%s got no other copy", id)
	}
}

// testChannelBroadcast: "all" sends every registered agent but the sender
// one copy, offline ones too (theirs waits in the inbox), all in one
// thread; a group larger than maxFanout is refused with ErrFanout and
// sends nothing.
func (s *suite) testChannelBroadcast(t *testing.T) {
	w := s.world(t)
	team := w.team(t)
	sender := team["coder-1"]
	out, err := sender.ch.PostTo(testkit.Ctx(t), "all", route.Request{Text: "standup in 5", Subject: "standup"})
	require.NoError(t, err)
	require.Equal(t, []string{"coder-2", "coder-3", "lead", "reviewer"}, recipients(out), "all but the sender")
	assert.Empty(t, out.Skipped)
	for _, m := range out.Sent {
		assert.Equal(t, out.Sent[0].ID, m.ThreadID, "one thread")
		assert.Equal(t, "standup", m.Subject)
	}
	_, err = team["lead"].ch.PostTo(testkit.Ctx(t), "all", route.Request{Text: "too many"})
	assert.ErrorIs(t, err, route.ErrFanout, "4 recipients, maxFanout 3")

	for _, id := range []string{"coder-2", "lead", "reviewer"} {
		in := team[id].recv(t)
		assert.Equal(t, "coder-1", in.SenderID)
		assert.Equal(t, out.Sent[0].ID, metaOf(t, in).ThreadID)
		end := sender.post(t, route.Request{To: id, Text: "end"})
		assert.Equal(t, end, metaOf(t, team[id].recv(t)).MessageID, "%s got one copy", id)
	}
	offline := storetest.OpenInbox(t, w.open(t, nil), "coder-3")
	storetest.ExpectNext(t, offline, out.Sent[1].ID) // recipients are sorted: coder-3 is the second
	end := sender.post(t, route.Request{To: "coder-3", Text: "end"})
	storetest.ExpectNext(t, offline, end)
}

// testChannelGroups: cap:, role:, a bare capability name and a pattern
// name every holder but the sender, offline ones too; any: names the
// online holder with the most free task slots. Each recipient gets one
// copy, under the loop rules: one already in the trace is skipped and
// reported. A group that names nobody is an error.
func (s *suite) testChannelGroups(t *testing.T) {
	w := s.world(t)
	team := w.team(t)
	lead := team["lead"]
	want := map[string][]string{}
	for _, tt := range []struct {
		target string
		to     []string
	}{
		{"cap:review", []string{"coder-2", "reviewer"}},
		{"role:dev", []string{"coder-1", "coder-2"}},
		{"review", []string{"coder-2", "reviewer"}},
		{"any:code", []string{"coder-2"}},
		{"coder-*", []string{"coder-1", "coder-2", "coder-3"}},
	} {
		out, err := lead.ch.PostTo(testkit.Ctx(t), tt.target, route.Request{Text: tt.target})
		require.NoError(t, err, tt.target)
		assert.Equal(t, tt.to, recipients(out), tt.target)
		for _, id := range tt.to {
			want[id] = append(want[id], tt.target)
		}
	}
	parent := &meta.Meta{MessageID: "m0", From: "planner", To: "lead", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"coder-2", "planner"}}
	out, err := lead.ch.PostTo(testkit.Ctx(t), "role:dev", route.Request{Text: "fyi", Parent: parent})
	require.NoError(t, err)
	assert.Equal(t, []string{"coder-1"}, recipients(out))
	require.Len(t, out.Skipped, 1)
	assert.Equal(t, "coder-2", out.Skipped[0].To)
	assert.ErrorIs(t, out.Skipped[0].Err, route.ErrLoop)
	want["coder-1"] = append(want["coder-1"], "fyi")

	for target, sentinel := range map[string]error{"cap:deploy": route.ErrUnknownTarget,
		"role:ops": route.ErrUnknownTarget, "tester-*": route.ErrUnknownTarget, "any:deploy": route.ErrNoAgent} {
		_, err := lead.ch.PostTo(testkit.Ctx(t), target, route.Request{Text: "nobody"})
		assert.ErrorIs(t, err, sentinel, target)
	}
	expectOnly(t, lead, team, want)
	offline := storetest.OpenInbox(t, w.open(t, nil), "coder-3")
	d := storetest.Next(t, offline)
	assert.Equal(t, "coder-*", d.Message.Text(), "the offline holder's copy waits")
	storetest.Ack(t, offline, d)
	storetest.ExpectNext(t, offline, lead.post(t, route.Request{To: "coder-3", Text: "end"}))
}
