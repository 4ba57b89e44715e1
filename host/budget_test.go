package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/host"
)

// looksFirst is the scripted provider with one more step before a task:
// it first looks at who is online (the list_agents tool), then does the
// work, so a task costs two provider calls.
type looksFirst struct{ scripted.Provider }

func (p *looksFirst) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleUser && strings.HasPrefix(last.Content, "[mailbox task ") {
		resp, err := p.Provider.Chat(ctx, agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "who is online"}},
			Tools: req.Tools})
		if err == nil {
			resp.Usage = agent.Usage{InputTokens: 400, OutputTokens: 20} // reading the task and the tools
		}
		return resp, err
	}
	if last.Role == agent.RoleTool { // back to the task
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == agent.RoleUser {
				return p.Provider.Chat(ctx, agent.Request{Messages: req.Messages[:i+1], Tools: req.Tools})
			}
		}
	}
	return p.Provider.Chat(ctx, req)
}

// usage returns the usage entries of the audit log under root.
func usage(t *testing.T, root string) []store.Event {
	t.Helper()
	st, err := fsstore.Open(fsstore.Options{Root: root, AuditLog: true})
	require.NoError(t, err)
	defer st.Close()
	var out []store.Event
	require.NoError(t, st.ReadAudit(context.Background(), func(ev store.Event) bool {
		if ev.Kind == store.EventUsage {
			out = append(out, ev)
		}
		return true
	}))
	return out
}

// The user asks the researcher for work with a budget of 300 tokens per
// task; the coder spends 420 on its first step, so its next call is
// refused: the task fails with "budget exhausted", and the user is told in
// their chat. Both agents' usage is in the audit log.
func TestHostBudgetExhaustedMidDelegationTellsTheUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}), host.Options{Provider: &looksFirst{}})
	researcher := w.config("researcher", true, map[string]any{"budget": map[string]any{"taskTokens": 300}})
	c := newChat(t, w.start(researcher, host.Options{}), "oc_1")

	c.say("ask coder to sort 5 3 9 1")
	assert.Equal(t, "coder could not do it: budget exhausted: the task used 420 of its 300 tokens", c.await("could not"))

	// Each turn's entry is written when it ends, before its answer is
	// sent: all of them are in the log once the user was told.
	var coder, researcherTurns []store.Event
	var totals []string
	for _, ev := range usage(t, w.root) {
		if ev.InputTokens == 0 && ev.OutputTokens == 0 { // what a task used, in words
			totals = append(totals, ev.Agent+": "+ev.Reason)
			continue
		}
		switch ev.Agent {
		case "coder":
			coder = append(coder, ev)
		case "researcher":
			researcherTurns = append(researcherTurns, ev)
		}
	}
	assert.Equal(t, []string{"coder: task failed: used 420 of its 300 tokens (none left)"}, totals,
		"the coder's task, as its final update reports it")
	require.Len(t, coder, 1, "the coder's one turn")
	require.Len(t, researcherTurns, 2, "the user's message and the failed update (the accepted one is told without the model)")
	assert.Equal(t, int64(400), coder[0].InputTokens, "the coder's turn: the one call it made")
	assert.Equal(t, int64(20), coder[0].OutputTokens)
	assert.True(t, strings.HasPrefix(coder[0].TaskID, "task_"), "the entry names the task")
	assert.Equal(t, scripted.Model, researcherTurns[0].Model)
	assert.Positive(t, researcherTurns[0].InputTokens)
}

// An agent's daily token cap holds across a restart: over it, the user
// hears why; a day later (the clock of a third process) it answers again.
func TestHostDailyCapHoldsAcrossARestart(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg := w.config("solo", true, map[string]any{"budget": map[string]any{"dailyTokens": 1}})
	first := w.start(cfg, host.Options{})
	c := newChat(t, first, "oc_1")
	c.say("sort 5 3 9 1")
	assert.Equal(t, "1 3 5 9", c.await("1 3 5 9"), "under the cap")
	c.say("sort 2 1")
	refused := c.await("I could not answer")
	assert.Contains(t, refused, "I could not answer: daily token cap reached: ")
	assert.Contains(t, refused, "of 1 tokens used today (channels.mailbox.budget.dailyTokens)")
	require.NoError(t, first.Stop())

	second := w.start(cfg, host.Options{})
	c = newChat(t, second, "oc_1")
	c.say("sort 2 1")
	assert.Contains(t, c.await("I could not answer"), "daily token cap reached", "the count survived the restart")
	require.NoError(t, second.Stop())

	c = newChat(t, w.start(cfg, host.Options{Clock: aheadClock{clock.Real, 24 * time.Hour}}), "oc_1")
	c.say("sort 2 1")
	assert.Equal(t, "1 2", c.await("1 2"), "a new day")
}

// The coder accepts a task, then stops without finishing it and does not
// come back: once its heartbeat is older than offlineAfter on the
// researcher's clock, the task fails and the user is told why.
func TestHostTellsTheUserAWorkerWasLost(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	busy := &recorder{hold: "sort", release: make(chan struct{})}
	coder := w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}),
		host.Options{Provider: busy, StopTimeout: 100 * time.Millisecond})
	clk := clock.NewManual(time.Now())
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{Clock: clk}), "oc_1")

	c.say("ask coder to sort 5 3 9 1")
	c.await("coder accepted the task")
	assert.ErrorContains(t, coder.Stop(), "work unfinished", "it never finishes the task")
	clk.Add(45 * time.Second)
	assert.Equal(t, "coder could not do it: coder went offline while working on it (no heartbeat for 30s)", c.await("could not"))
}
