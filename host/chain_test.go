package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/host"
)

// flat is the scripted provider with every call costing the same.
type flat struct {
	scripted.Provider
	tokens int64
}

func (p *flat) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	resp, err := p.Provider.Chat(ctx, req)
	if resp != nil {
		resp.Usage = agent.Usage{InputTokens: p.tokens}
	}
	return resp, err
}

// finalUpdates returns the final task_updates sent to agent `to`,
// wherever the store holds them, each once. The agents still run: a
// message their receiver moves on (inbox → claimed → processed →
// archive) while Browse walks those folders in that order is read in
// both, so it is counted by id.
func finalUpdates(t *testing.T, root, to string) []*envelope.Message {
	t.Helper()
	st, err := fsstore.Open(fsstore.Options{Root: root})
	require.NoError(t, err)
	defer st.Close()
	var out []*envelope.Message
	seen := map[string]bool{}
	require.NoError(t, st.Browse(context.Background(), func(s store.Stored) bool {
		m := s.Message
		if m.To == to && m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.State.Terminal() && !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
		return true
	}))
	return out
}

// A chain of three agents: the user asks lead, lead asks mid, mid asks
// coder. mid's answer "I asked coder ..." does not end its task while
// coder works: the user hears it as progress, and the result at the
// bottom of the chain comes up to the user's chat.
func TestHostChainOfThreeAgentsReportsTheResultToTheUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}), host.Options{})
	w.start(w.config("mid", false, nil), host.Options{})
	c := newChat(t, w.start(w.config("lead", true, nil), host.Options{}), "oc_1")

	c.say("ask mid to ask coder to sort 5 3 9 1")
	assert.Contains(t, c.await("mid is working on it"), "mid is working on it: I asked coder to sort 5 3 9 1 (task task_")
	assert.Equal(t, "mid finished: coder finished: 1 3 5 9", c.await("finished"))
}

// The same chain with a budget of 300 tokens per task from lead: mid
// spends 100 on its one call (the delegation ends its turn, and coder's
// acceptance is told without a call) and hands coder the 200 left;
// coder's first step costs 420, so its next call is refused and its task
// fails "budget exhausted". mid's task fails with the same reason,
// reporting what the chain used, and the user reads it in their chat.
func TestHostBudgetExhaustedAtTheBottomOfAChainTellsTheUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}), host.Options{Provider: &looksFirst{}})
	w.start(w.config("mid", false, nil), host.Options{Provider: &flat{tokens: 100}})
	lead := w.config("lead", true, map[string]any{"budget": map[string]any{"taskTokens": 300}})
	c := newChat(t, w.start(lead, host.Options{}), "oc_1")

	c.say("ask mid to ask coder to sort 5 3 9 1")
	assert.Equal(t, "mid could not do it: budget exhausted: the task used 420 of its 200 tokens", c.await("could not"))

	ups := finalUpdates(t, w.root, "lead")
	require.Len(t, ups, 1)
	task := ups[0].Task
	assert.Equal(t, envelope.StateFailed, task.State)
	assert.Equal(t, &envelope.Budget{Tokens: 300}, task.Budget, "mid's task had lead's budget")
	assert.Equal(t, &envelope.Budget{Tokens: 520}, task.Used, "mid's 100, and coder's 420 charged to mid's task")
	ups = finalUpdates(t, w.root, "mid")
	require.Len(t, ups, 1)
	assert.Equal(t, &envelope.Budget{Tokens: 200}, ups[0].Task.Budget, "coder was handed what mid had left")
	assert.Equal(t, &envelope.Budget{Tokens: 420}, ups[0].Task.Used)

	var totals []string
	for _, ev := range usage(t, w.root) {
		if ev.InputTokens == 0 && ev.OutputTokens == 0 {
			totals = append(totals, ev.Agent+": "+ev.Reason)
		}
	}
	assert.Contains(t, totals, "coder: task failed: used 420 of its 200 tokens (none left)")
	assert.Contains(t, totals, "mid: task failed: used 520 of its 300 tokens (none left)")
	found := false
	for _, s := range totals {
		found = found || strings.HasPrefix(s, "mid: subtask task_") && strings.HasSuffix(s, "used 420 tokens, charged to task "+task.ID)
	}
	assert.True(t, found, "mid's audit names the subtask charged to its task: %q", totals)
}
