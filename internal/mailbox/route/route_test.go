package route_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
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

// registerCards registers testkit.Team at now.
func registerCards(t *testing.T, reg store.Registry, now time.Time) {
	t.Helper()
	for _, c := range testkit.Team(now) {
		_, err := reg.UpdateCard(context.Background(), c.AgentID, func(card *envelope.Card) { *card = c })
		require.NoError(t, err)
	}
}

func TestResolveTargets(t *testing.T) {
	hub := memstore.NewHub()
	reg := hub.Open(memstore.Options{})
	now := time.Now()
	registerCards(t, reg, now)
	opts := route.ResolveOptions{Now: now, OfflineAfter: 30 * time.Second, MaxFanout: 3,
		HasInbox: func(a string) bool { return a == "nanobot-worker" }}
	resolve := func(target string) ([]string, error) {
		tg, err := route.ParseTarget(target)
		require.NoError(t, err)
		return route.Resolve(context.Background(), reg, "lead", tg, opts)
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

	lonely := memstore.NewHub().Open(memstore.Options{})
	_, err = route.Resolve(context.Background(), lonely, "lead", route.Target{Kind: route.TargetAll}, opts)
	assert.ErrorIs(t, err, route.ErrUnknownTarget)
	assert.Contains(t, err.Error(), "no agent is registered besides lead")
}

func TestComposeThreads(t *testing.T) {
	first, err := route.Compose("critic", route.Request{To: "executor", Text: "why?", Subject: "dead-code", ExpectsReply: true},
		route.ComposeOptions{Now: convT0})
	require.NoError(t, err)
	assert.Equal(t, first.ID, first.ThreadID, "a new message starts a thread named by its id")
	assert.Equal(t, "dead-code", first.Subject)

	orig := meta.FromMessage(first, false)
	reply, err := route.Compose("executor", route.Request{To: "critic", Text: "on purpose"}, route.ComposeOptions{Now: convT0, Original: &orig})
	require.NoError(t, err)
	assert.Equal(t, first.ID, reply.ThreadID, "a reply inherits the thread")
	assert.Equal(t, first.ID, reply.ReplyTo)
	assert.Equal(t, envelope.KindResponse, reply.Kind())

	orig2 := meta.FromMessage(reply, false)
	again, err := route.Compose("critic", route.Request{To: "executor", Text: "ok"}, route.ComposeOptions{Now: convT0, Original: &orig2})
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ThreadID, "and so does a reply to the reply")
	assert.Equal(t, 2, again.HopCount)

	joined, err := route.Compose("critic", route.Request{To: "planner", Text: "fyi", ThreadID: first.ID}, route.ComposeOptions{Now: convT0})
	require.NoError(t, err)
	assert.Equal(t, first.ID, joined.ThreadID, "a new message can join a thread by its id")

	// A reply to a nanobot message (no thread id) joins the thread of
	// that message's id.
	nano := meta.Meta{MessageID: "msg_1_critic", From: "critic", To: "executor", Type: envelope.TypeMessage, TTL: 3}
	r, err := route.Compose("executor", route.Request{To: "critic", Text: "x"}, route.ComposeOptions{Now: convT0, Original: &nano})
	require.NoError(t, err)
	assert.Equal(t, "msg_1_critic", r.ThreadID)
}

func TestComposeSubjectAndPriority(t *testing.T) {
	_, err := route.Compose("a", route.Request{To: "b", Text: "x", Subject: "Not Kebab"}, route.ComposeOptions{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, envelope.ErrBadSubject))
	assert.Contains(t, err.Error(), "kebab-case")

	_, err = route.Compose("a", route.Request{To: "b", Text: "x", Priority: 4}, route.ComposeOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "priority 4: want 0 to 3")

	m, err := route.Compose("a", route.Request{To: "b", Text: "x", Priority: 3}, route.ComposeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, m.Priority)
}

func TestComposeRepliesOwed(t *testing.T) {
	m, err := route.Compose("a", route.Request{To: "b", Text: "x", ExpectsReply: true},
		route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	require.NotNil(t, m.ReplyBy)
	assert.True(t, m.ReplyBy.Equal(convT0.Add(time.Hour)), "due after replyTimeout")
	assert.Equal(t, envelope.KindRequest, m.Kind())

	due := convT0.Add(5 * time.Minute)
	m, err = route.Compose("a", route.Request{To: "b", Text: "x", ExpectsReply: true, ReplyBy: due},
		route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.True(t, m.ReplyBy.Equal(due), "a request's own due time wins")

	m, err = route.Compose("a", route.Request{To: "b", Text: "x"}, route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.Nil(t, m.ReplyBy, "a notice is owed nothing")
	assert.Equal(t, envelope.KindNotify, m.Kind())

	task, err := route.Compose("a", route.Request{To: "b", Type: envelope.TypeTask, Text: "x"}, route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.True(t, task.ExpectsReply)
	assert.Nil(t, task.ReplyBy, "a task is due by its deadline")
}

func TestComposeTaskOfPlainMessages(t *testing.T) {
	m, err := route.Compose("worker", route.Request{To: "boss", Text: "which file?", TaskID: "task_7", ExpectsReply: true}, route.ComposeOptions{})
	require.NoError(t, err)
	assert.Equal(t, "task_7", m.TaskID)
	assert.Equal(t, "task_7", m.TaskOf())

	orig := meta.FromMessage(m, false)
	r, err := route.Compose("boss", route.Request{To: "worker", Text: "main.go"}, route.ComposeOptions{Original: &orig})
	require.NoError(t, err)
	assert.Equal(t, "task_7", r.TaskID, "the answer belongs to the same task")

	taskMeta := meta.Meta{MessageID: "m1", From: "boss", To: "worker", Type: envelope.TypeTask,
		Task: &envelope.Task{ID: "task_8"}, TTL: 2}
	q, err := route.Compose("worker", route.Request{To: "boss", Text: "question", ReplyTo: "m1"}, route.ComposeOptions{Original: &taskMeta})
	require.NoError(t, err)
	assert.Equal(t, "task_8", q.TaskID, "a question about a task belongs to it")
}
func TestComposeOffline(t *testing.T) {
	m, err := route.Compose("cli", route.Request{To: "coder", Text: "hi"}, route.ComposeOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"cli"}, m.Trace)
	assert.Equal(t, envelope.DefaultTTL-1, m.TTL)
	assert.False(t, m.Timestamp.IsZero())

	_, err = route.Compose("../x", route.Request{To: "coder"}, route.ComposeOptions{})
	assert.ErrorContains(t, err, "from")
	_, err = route.Compose("cli", route.Request{To: ""}, route.ComposeOptions{})
	assert.ErrorContains(t, err, "to")
	_, err = route.Compose("cli", route.Request{To: "coder", Priority: 9}, route.ComposeOptions{})
	assert.Error(t, err)

	orig := &meta.Meta{MessageID: "m1", From: "coder", TTL: 0, Trace: []string{"coder"}, HopCount: 4}
	r, err := route.Compose("cli", route.Request{To: "coder", Text: "re"},
		route.ComposeOptions{Original: orig, MaxThreadHops: 5})
	require.NoError(t, err)
	assert.Equal(t, "m1", r.ReplyTo)
	assert.Equal(t, "m1", r.ThreadID)
	assert.Equal(t, 5, r.HopCount)
	orig.HopCount = 5
	_, err = route.Compose("cli", route.Request{To: "coder"}, route.ComposeOptions{Original: orig, MaxThreadHops: 5})
	assert.ErrorIs(t, err, route.ErrHopLimit)
}

// convT0 is the time the conversation tests start at.
var convT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestComposeTaskPath(t *testing.T) {
	t.Parallel()
	root, err := route.Compose("lead", route.Request{To: "coder", Type: envelope.TypeTask, Text: "Sort  it"}, route.ComposeOptions{})
	assert.NoError(t, err)
	fp := meta.WorkFingerprint("sort it")
	assert.Equal(t, []string{"lead>coder:" + fp}, root.TaskPath, "case and spacing do not change the work")
	parent := meta.FromMessage(root, false)
	sub, err := route.Compose("coder", route.Request{To: "reviewer", Type: envelope.TypeTask, Text: "check", Parent: &parent},
		route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Equal(t, []string{"lead>coder:" + fp, "coder>reviewer:" + meta.WorkFingerprint("check")}, sub.TaskPath)
	msg, err := route.Compose("coder", route.Request{To: "reviewer", Text: "a note", Parent: &parent}, route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Nil(t, msg.TaskPath, "only tasks carry a path")
	routed := &meta.Tree{Task: "t0", Path: []string{"x>coder:1234"}}
	sub, err = route.Compose("coder", route.Request{To: "reviewer", Type: envelope.TypeTask, Text: "check", Tree: routed},
		route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Equal(t, []string{"x>coder:1234", "coder>reviewer:" + meta.WorkFingerprint("check")}, sub.TaskPath)
}

func TestLoopReason(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "loop: coder already in trace [lead coder]", route.LoopReason("coder", []string{"lead", "coder"}))
	trace := make([]string, 0, 41)
	for i := range 40 {
		trace = append(trace, fmt.Sprintf("a%d", i))
	}
	trace = append(trace, "coder")
	assert.Equal(t, "loop: coder already in trace [a0 a1 a2 a3 … 32 more … a36 a37 a38 a39 coder]",
		route.LoopReason("coder", trace), "a long trace is clipped")
	assert.Equal(t, "loop: coder already in trace ["+strings.Repeat("x", 64)+"… coder]",
		route.LoopReason("coder", []string{strings.Repeat("x", 100000), "coder"}), "so is a long name")
}
