package mailbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestPostToFansOutUnderTheLoopRules(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)

	out, err := lead.PostTo(context.Background(), "cap:code", route.Request{Text: "standup in 5", Subject: "standup"})
	require.NoError(t, err)
	require.Len(t, out.Sent, 3)
	for i, to := range []string{"coder-1", "coder-2", "coder-3"} {
		assert.Equal(t, to, out.Sent[i].To)
		assert.Equal(t, out.Sent[0].ID, out.Sent[i].ThreadID, "one thread")
		assert.Equal(t, "standup", out.Sent[i].Subject)
	}
	assert.Empty(t, out.Skipped)

	// A forward of a message that passed coder-2 skips coder-2.
	parent := &meta.Meta{MessageID: "m0", From: "planner", To: "lead", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"coder-2", "planner"}}
	out, err = lead.PostTo(context.Background(), "role:dev", route.Request{Text: "fyi", Parent: parent})
	require.NoError(t, err)
	require.Len(t, out.Sent, 1)
	assert.Equal(t, "coder-1", out.Sent[0].To)
	require.Len(t, out.Skipped, 1)
	assert.Equal(t, "coder-2", out.Skipped[0].To)
	assert.True(t, errors.Is(out.Skipped[0].Err, route.ErrLoop))

	_, err = lead.PostTo(context.Background(), "coder-2", route.Request{Text: "x", Parent: parent})
	assert.ErrorIs(t, err, route.ErrLoop, "nobody left to send to")
	_, err = lead.PostTo(context.Background(), "cap:code", route.Request{Type: envelope.TypeTask, Text: "x", TaskID: "t1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a task id names one task, for one agent")
	_, err = lead.PostTo(context.Background(), "cap:nothing", route.Request{Text: "x"})
	assert.ErrorIs(t, err, route.ErrUnknownTarget)

	n := 0
	require.NoError(t, w.store.Browse(context.Background(), func(s store.Stored) bool { n++; return true }))
	assert.Equal(t, 4, n, "only the sends that went through were delivered")
}

// A bare name that is an agent with an inbox (not registered yet) names
// that agent, even when others hold a capability of that name.
func TestPostToBareNameWithAnInbox(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)
	out, err := lead.PostTo(context.Background(), "review", route.Request{Text: "x"})
	require.NoError(t, err)
	assert.Len(t, out.Sent, 2, "the holders of capability review")

	first, err := route.Compose("planner", route.Request{To: "review", Text: "hello"}, route.ComposeOptions{})
	require.NoError(t, err)
	require.NoError(t, w.store.Deliver(context.Background(), first))
	out, err = lead.PostTo(context.Background(), "review", route.Request{Text: "x"})
	require.NoError(t, err)
	require.Len(t, out.Sent, 1)
	assert.Equal(t, "review", out.Sent[0].To, "the agent whose inbox it is")
}

func TestDiscoveryByRole(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)
	devs, err := lead.FindByRole(context.Background(), "dev")
	require.NoError(t, err)
	require.Len(t, devs, 2)
	assert.Equal(t, "coder-2", devs[0].AgentID, "most free slots first")

	agents, err := lead.Agents(context.Background(), false)
	require.NoError(t, err)
	assert.Equal(t, []view.RoleCount{
		{Role: "", Agents: 1, Online: 0},
		{Role: "dev", Agents: 2, Online: 2},
		{Role: "planner", Agents: 1, Online: 1},
		{Role: "reviewer", Agents: 1, Online: 1},
	}, view.RoleSummary(agents))
}

// convCards registers testkit.Team on the world's store.
func convCards(t *testing.T, w *convWorld) {
	t.Helper()
	for _, c := range testkit.Team(w.clock.Now()) {
		_, err := w.store.UpdateCard(context.Background(), c.AgentID, func(card *envelope.Card) { *card = c })
		require.NoError(t, err)
	}
}
