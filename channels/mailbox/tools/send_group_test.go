package tools_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// recipients returns the To of each request posted.
func recipients(reqs []route.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.To)
	}
	return out
}

func TestSendMessageToAGroup(t *testing.T) {
	for _, tt := range []struct {
		to, out string
		want    []string
	}{
		{"all", "sent 3 message(s) to all: coder, helper, sleeper (thread msg-1)", []string{"coder", "helper", "sleeper"}},
		{"cap:counting", "sent 2 message(s) to cap:counting: coder, helper (thread msg-1)", []string{"coder", "helper"}},
		{"counting", "sent 2 message(s) to counting: coder, helper (thread msg-1)", []string{"coder", "helper"}},
		{"role:reviewer", "sent 1 message(s) to role:reviewer: critic (thread msg-1)", []string{"critic"}},
		{"any:sorting", "sent 1 message(s) to any:sorting: coder (thread msg-1)", []string{"coder"}},
		{"*er", "sent 3 message(s) to *er: coder, helper, sleeper (thread msg-1)", []string{"coder", "helper", "sleeper"}},
		{"coder", "sent message msg-1 to coder", []string{"coder"}},
		{"agent:coder", "sent message msg-1 to coder", []string{"coder"}},
	} {
		t.Run(tt.to, func(t *testing.T) {
			fake := newFake()
			if tt.to == "role:reviewer" {
				critic := agentCard("critic", envelope.StatusIdle, 3)
				critic.Roles = []string{"reviewer"}
				fake.agents = append(fake.agents, critic)
			}
			out, err := run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"`+tt.to+`","text":"standup"}`)
			require.NoError(t, err)
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.want, recipients(fake.posts()))
			for _, r := range fake.posts() {
				assert.Equal(t, "standup", r.Text)
			}
		})
	}
}

func TestSendMessageToAGroupKeepsTheLoopRules(t *testing.T) {
	fake := newFake()
	fake.skip = map[string]error{"helper": route.ErrLoop}
	turn, mt := fromAgent("planner", envelope.TypeMessage)
	out, err := run(t, tool(t, fake, "send_message"), turn, `{"to":"cap:counting","text":"fyi"}`)
	require.NoError(t, err)
	assert.Equal(t, "sent 1 message(s) to cap:counting: coder (thread msg-1); skipped helper: circular route: target already in trace", out)
	require.Len(t, fake.posts(), 1)
	assert.Equal(t, &mt, fake.posts()[0].Parent, "each copy carries the handled message, for the loop rules")
}

func TestSendMessageGroupErrors(t *testing.T) {
	for _, tt := range []struct{ to, want string }{
		{"cap:painting", "unknown target"},
		{"team:x", `unknown prefix "team:"`},
		{"painting", `unknown agent "painting"`},
		{"../x", "invalid agent id"},
		{"any:painting", "no online agent offers it"},
	} {
		t.Run(tt.to, func(t *testing.T) {
			fake := newFake()
			_, err := run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"`+tt.to+`","text":"x"}`)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, fake.posts())
		})
	}
}

// The tool over real channels sharing one mailbox tree: every other
// registered agent gets its own copy, in one thread.
func TestSendMessageToAllThroughTheChannel(t *testing.T) {
	st, err := fsstore.Open(fsstore.Options{Root: t.TempDir() + "/mb", NoSync: true, PollInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ctx := testkit.CtxFor(t, testkit.Steps(6)) // three channels started, three messages sent and received
	start := func(id string, roles ...string) (*mailbox.Channel, *bus.Bus) {
		cfg := mailbox.DefaultConfig()
		cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync, cfg.Roles = id, st.Root(), false, roles
		b := bus.New(8)
		c, err := mailbox.New(cfg, b, mailbox.Options{Backend: store.New(st, nil)})
		require.NoError(t, err)
		require.NoError(t, c.Start(ctx))
		t.Cleanup(func() { require.NoError(t, c.Stop(context.WithoutCancel(ctx))) })
		return c, b
	}
	lead, _ := start("lead")
	_, coderBus := start("coder", "engineer")
	_, criticBus := start("critic", "reviewer")

	out, err := run(t, tool(t, lead, "send_message"), fromUser(), `{"to":"all","text":"freeze at 17:00"}`)
	require.NoError(t, err)
	assert.Regexp(t, `^sent 2 message\(s\) to all: coder, critic \(thread [0-9a-f-]{36}\)$`, out)
	var threads []string
	for _, b := range []*bus.Bus{coderBus, criticBus} {
		in, err := b.ConsumeInbound(ctx)
		require.NoError(t, err)
		assert.Equal(t, "freeze at 17:00", in.Content)
		assert.Equal(t, "lead", in.SenderID)
		mt, ok := meta.Of(in.Metadata)
		require.True(t, ok)
		threads = append(threads, mt.ThreadID)
	}
	assert.Equal(t, threads[0], threads[1], "the copies share a thread")

	out, err = run(t, tool(t, lead, "send_message"), fromUser(), `{"to":"role:reviewer","text":"please look"}`)
	require.NoError(t, err)
	assert.Contains(t, out, "sent 1 message(s) to role:reviewer: critic")
	in, err := criticBus.ConsumeInbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "please look", in.Content)
}
