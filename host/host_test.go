package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/host"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
)

// The hosts below are what `switchboard run` builds from config, in one
// process: real channels over a real mailbox tree, the Feishu stub over
// HTTP, the agent loop with the scripted provider.

func TestHostDelegatesAndAnswersTheUser(t *testing.T) {
	w := newWorld(t)
	w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}), host.Options{})
	researcher := w.start(w.config("researcher", true, nil), host.Options{})
	c := newChat(t, researcher, "oc_1")

	c.say("ask coder to sort 5 3 9 1")
	assert.Contains(t, c.await("I asked coder"), "I asked coder to sort 5 3 9 1 (task task_")
	assert.Equal(t, "coder accepted the task and is working on it.", c.await("accepted"))
	assert.Equal(t, "coder finished: 1 3 5 9", c.await("finished"))
}

func TestHostJudgesTasksByCapabilities(t *testing.T) {
	w := newWorld(t)
	w.start(w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}}), host.Options{})
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{}), "oc_1")

	c.say("ask coder to count words in a b c")
	assert.Equal(t, "coder could not do it: declined: no capability for count", c.await("could not"))
}

// A task that finds its worker at capacity is rejected, and the user who
// asked for it is told why in their chat.
func TestHostTellsTheUserATaskWasRejectedForCapacity(t *testing.T) {
	w := newWorld(t)
	busy := &recorder{hold: "count words", release: make(chan struct{})}
	coderCfg := w.config("coder", false, map[string]any{"capabilities": []string{"sorting", "counting"}, "maxConcurrentTasks": 1})
	w.start(coderCfg, host.Options{Provider: busy})
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{}), "oc_1")

	c.say("ask coder to count words in a b c")
	c.await("coder accepted the task") // coder's one slot is taken until release
	c.say("ask coder to sort 5 3 9 1")
	assert.Equal(t, "coder could not do it: over capacity (1 of 1 tasks running)", c.await("could not"))

	close(busy.release)
	assert.Equal(t, "coder finished: 3", c.await("finished"))
}

// A task that reaches its worker after its deadline is rejected, and the
// user is told why in their chat: coder is offline when the task is sent
// and comes back two minutes later (its clock says so).
func TestHostTellsTheUserATaskMissedItsDeadline(t *testing.T) {
	w := newWorld(t)
	coderCfg := w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}})
	first := w.start(coderCfg, host.Options{})
	require.NoError(t, first.Stop()) // registered, now offline
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{}), "oc_1")

	c.say("ask coder to sort 5 3 9 1 within 60 seconds")
	c.await("I asked coder to sort 5 3 9 1 (task")
	w.start(coderCfg, host.Options{Clock: aheadClock{clock.Real, 2 * time.Minute}})
	assert.Equal(t, "coder could not do it: deadline passed", c.await("could not"))
}

// The researcher is restarted while its task waits for coder: the result
// still reaches the user's chat, and the conversation goes on with the
// history from before the restart.
func TestHostConversationContinuesAfterRestart(t *testing.T) {
	w := newWorld(t)
	coderCfg := w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}})
	first := w.start(coderCfg, host.Options{})
	require.NoError(t, first.Stop())
	researcherCfg := w.config("researcher", true, nil)

	before := w.start(researcherCfg, host.Options{})
	c := newChat(t, before, "oc_1")
	c.say("ask coder to sort 5 3 9 1")
	asked := c.await("I asked coder")
	require.NoError(t, before.Stop())

	rec := &recorder{}
	after := w.start(researcherCfg, host.Options{Provider: rec})
	w.start(coderCfg, host.Options{})
	c = newChat(t, after, "oc_1") // the new process has a new port
	assert.Equal(t, "coder finished: 1 3 5 9", c.await("finished"))

	reqs := rec.requests()
	require.NotEmpty(t, reqs)
	got := convo(reqs[len(reqs)-1])
	require.GreaterOrEqual(t, len(got), 4)
	assert.Equal(t, []string{"user: ask coder to sort 5 3 9 1", "assistant: -> delegate_task"}, got[:2],
		"the first turn after the restart sees the conversation from before it")
	assert.Equal(t, "assistant: "+asked, got[3])
	assert.Contains(t, got[len(got)-1], "completed] 1 3 5 9")

	var outbox []string // what the user was sent, by both processes
	f, err := os.Open(filepath.Join(w.dir, "researcher", "outbox.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r feishustub.Reply
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		assert.Equal(t, "oc_1", r.ChatID)
		outbox = append(outbox, r.Content)
	}
	assert.Equal(t, []string{asked, "coder accepted the task and is working on it.", "coder finished: 1 3 5 9"}, outbox)
}

func TestHostStopMarksOffline(t *testing.T) {
	w := newWorld(t)
	h := w.start(w.config("solo", false, nil), host.Options{})
	require.NoError(t, h.Stop())
	require.NoError(t, h.Stop(), "a second stop does nothing")
	st, err := fsstore.Open(fsstore.Options{Root: w.root})
	require.NoError(t, err)
	defer st.Close()
	card, err := st.Card(context.Background(), "solo")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status)
}

func TestHostNeedsAChannel(t *testing.T) {
	w := newWorld(t)
	cfg := w.config("x", false, map[string]any{"enabled": false})
	_, err := host.New(cfg, host.Options{})
	require.Error(t, err)
	assert.Equal(t, "no channel is enabled in "+cfg.Path+": set channels.mailbox.enabled (or channels.feishu.enabled) to true", err.Error())
}
