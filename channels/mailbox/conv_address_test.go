package mailbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/meta"
	"github.com/switchboard-dev/switchboard/channels/mailbox/route"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/view"
)

func TestParseTarget(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want route.Target
		err  string
	}{
		{"all", route.Target{Kind: route.TargetAll}, ""},
		{"coder", route.Target{Kind: route.TargetName, Name: "coder"}, ""},
		{"agent:coder", route.Target{Kind: route.TargetAgent, Name: "coder"}, ""},
		{"cap:review", route.Target{Kind: route.TargetCap, Name: "review"}, ""},
		{"role:reviewer", route.Target{Kind: route.TargetRole, Name: "reviewer"}, ""},
		{"any:review", route.Target{Kind: route.TargetAny, Name: "review"}, ""},
		{"coder-*", route.Target{Kind: route.TargetPattern, Name: "coder-*"}, ""},
		{"coder-[12]", route.Target{Kind: route.TargetPattern, Name: "coder-[12]"}, ""},
		{"", route.Target{}, "empty"},
		{"coder-[", route.Target{}, "bad pattern"},
		{"agent:../x", route.Target{}, "invalid agent id"},
		{"cap:", route.Target{}, "want cap:NAME"},
		{"team:x", route.Target{}, `unknown prefix "team:"`},
		{"a b", route.Target{}, "or use all, cap:NAME"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := route.ParseTarget(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if tt.in != "" {
				assert.Equal(t, tt.in, got.String())
			}
		})
	}
}

// convCards registers a team: lead; coder-1 (code, role dev, one task
// running); coder-2 (code, review, role dev); reviewer (review, role
// reviewer); coder-3 (code) whose heartbeat is old: offline.
func convCards(t *testing.T, w *convWorld) {
	t.Helper()
	now := envelope.NewTime(w.clock.Now())
	old := envelope.NewTime(w.clock.Now().Add(-time.Hour))
	for _, c := range []envelope.Card{
		{AgentID: "lead", Roles: []string{"planner"}, LastHeartbeat: now, Status: envelope.StatusIdle, MaxConcurrentTasks: 3},
		{AgentID: "coder-1", Capabilities: []string{"code"}, Roles: []string{"dev"}, LastHeartbeat: now,
			Status: envelope.StatusBusy, MaxConcurrentTasks: 2, CurrentTasks: []string{"t9"}},
		{AgentID: "coder-2", Capabilities: []string{"code", "review"}, Roles: []string{"dev"}, LastHeartbeat: now,
			Status: envelope.StatusIdle, MaxConcurrentTasks: 2},
		{AgentID: "reviewer", Capabilities: []string{"review"}, Roles: []string{"reviewer"}, LastHeartbeat: now,
			Status: envelope.StatusIdle, MaxConcurrentTasks: 1},
		{AgentID: "coder-3", Capabilities: []string{"code"}, LastHeartbeat: old, Status: envelope.StatusIdle, MaxConcurrentTasks: 5},
	} {
		_, err := w.store.UpdateCard(context.Background(), c.AgentID, func(card *envelope.Card) { *card = c })
		require.NoError(t, err)
	}
}

func TestResolveTargets(t *testing.T) {
	w := newConvWorld(t)
	convCards(t, w)
	opts := route.ResolveOptions{Now: w.clock.Now(), OfflineAfter: 30 * time.Second, MaxFanout: 3,
		HasInbox: func(a string) bool { return a == "nanobot-worker" }}
	resolve := func(target string) ([]string, error) {
		tg, err := route.ParseTarget(target)
		require.NoError(t, err)
		return route.Resolve(context.Background(), w.store, "lead", tg, opts)
	}
	for _, tt := range []struct {
		target string
		want   []string
	}{
		{"coder-*", []string{"coder-1", "coder-2", "coder-3"}},
		{"cap:code", []string{"coder-1", "coder-2", "coder-3"}},
		{"cap:review", []string{"coder-2", "reviewer"}},
		{"role:dev", []string{"coder-1", "coder-2"}},
		{"review", []string{"coder-2", "reviewer"}},
		{"any:code", []string{"coder-2"}},
		{"any:dev", []string{"coder-2"}},
		{"reviewer", []string{"reviewer"}},
		{"agent:code", []string{"code"}},
		{"nanobot-worker", []string{"nanobot-worker"}},
		{"newcomer", []string{"newcomer"}},
		{"lead", []string{"lead"}},
	} {
		t.Run(tt.target, func(t *testing.T) {
			got, err := resolve(tt.target)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	_, err := resolve("all")
	require.ErrorIs(t, err, route.ErrFanout, "4 others, over maxFanout 3")
	assert.Contains(t, err.Error(), "4 recipients, over the limit of 3 (channels.mailbox.maxFanout)")
	opts.MaxFanout = 10
	all, err := resolve("all")
	require.NoError(t, err)
	assert.Equal(t, []string{"coder-1", "coder-2", "coder-3", "reviewer"}, all, "everybody but the sender, offline too")

	for target, want := range map[string]string{
		"cap:deploy": "no agent has capability deploy",
		"role:ops":   "no agent has role ops",
		"tester-*":   "no registered agent matches (registered: coder-1, coder-2, coder-3, lead, reviewer)",
	} {
		_, err := resolve(target)
		require.ErrorIs(t, err, route.ErrUnknownTarget, target)
		assert.Contains(t, err.Error(), want)
	}
	_, err = resolve("any:deploy")
	assert.ErrorIs(t, err, route.ErrNoAgent)

	lonely := newConvWorld(t)
	_, err = route.Resolve(context.Background(), lonely.store, "lead", route.Target{Kind: route.TargetAll}, opts)
	assert.ErrorIs(t, err, route.ErrUnknownTarget)
	assert.Contains(t, err.Error(), "no agent is registered besides lead")
}

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
