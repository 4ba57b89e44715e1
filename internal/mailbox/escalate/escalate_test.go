package escalate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
)

func TestDefaultEscalatesNothing(t *testing.T) {
	c := escalate.DefaultConfig()
	assert.False(t, c.Enabled())
	for _, tr := range escalate.Triggers {
		assert.False(t, c.Triggered(tr), tr)
	}
	require.NoError(t, c.Validate("channels.mailbox.escalation", "alice"))
}

func TestLevelTimeouts(t *testing.T) {
	c := escalate.DefaultConfig()
	c.Levels = []string{"lead", "cap:ops", "human"}
	assert.Equal(t, 600*time.Second, c.LevelTimeout(0))
	assert.Equal(t, 3600*time.Second, c.LevelTimeout(2))
	c.Timeouts = []float64{5, 10, 20}
	assert.Equal(t, 10*time.Second, c.LevelTimeout(1))
	assert.Equal(t, 20*time.Second, c.LevelTimeout(2))
	assert.True(t, c.Triggered(escalate.Deadlock))
	c.On = []string{escalate.Rejected}
	assert.False(t, c.Triggered(escalate.Failed))
}

func TestValidateNamesEachBadKey(t *testing.T) {
	c := escalate.DefaultConfig()
	c.Levels = []string{"lead", "alice", "any:x", "lead", "bad id!"}
	c.On = []string{"failed", "sometimes"}
	c.Timeout, c.HumanTimeout = 0, -1
	c.Timeouts = []float64{1}
	c.Channel = "feishu"
	err := c.Validate("channels.mailbox.escalation", "alice")
	require.Error(t, err)
	for _, want := range []string{
		`channels.mailbox.escalation.levels[1]: "alice" is this agent`,
		`channels.mailbox.escalation.levels[2]: "any:x": want an agent id, cap:NAME, role:NAME or human`,
		`channels.mailbox.escalation.levels[3]: "lead" is listed twice`,
		`channels.mailbox.escalation.levels[4]: want an agent id`,
		`channels.mailbox.escalation.on[1]: unknown trigger "sometimes" (known: rejected, notAccepted, failed, overdue, stalemate, deadlock)`,
		`channels.mailbox.escalation.timeout: want a number of seconds`,
		`channels.mailbox.escalation.humanTimeout: want a number of seconds`,
		`channels.mailbox.escalation.timeouts: want one number of seconds per level (5), got 1`,
		`channels.mailbox.escalation.chatId: set both channel and chatId`,
		`channels.mailbox.escalation.channel: the operator's chat is where the human level is asked; add "human" to levels`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	c = escalate.DefaultConfig()
	c.Levels, c.On = []string{"lead"}, []string{}
	assert.ErrorContains(t, c.Validate("k", "alice"), "k.on: empty")
}

func TestParseAnswer(t *testing.T) {
	ids := []string{"0196-abc"}
	for text, want := range map[string]escalate.Answer{
		"1":                 {Action: store.ActRetry},
		"Retry.":            {Action: store.ActRetry},
		"retry 0196-abc":    {Action: store.ActRetry, ID: "0196-abc"},
		"2 erin":            {Action: store.ActReassign, Agent: "erin"},
		"reassign to erin":  {Action: store.ActReassign, Agent: "erin"},
		"give it to erin":   {Action: store.ActReassign, Agent: "erin"},
		"3":                 {Action: store.ActCancel},
		"cancel":            {Action: store.ActCancel},
		"4":                 {Action: store.ActTakeOver},
		"take over":         {Action: store.ActTakeOver},
		"takeover 0196-abc": {Action: store.ActTakeOver, ID: "0196-abc"},
	} {
		got, attempt, err := escalate.ParseAnswer(text, ids)
		require.NoError(t, err, text)
		assert.True(t, attempt, text)
		assert.Equal(t, want, got, text)
	}
	for text, why := range map[string]string{
		"5":             `I did not understand "5". Answer 1 = retry`,
		"maybe":         `I did not understand "maybe"`,
		"2":             "reassign to whom?",
		"reassign Bob!": "",
		"retry twice":   `I did not understand "retry twice"`,
	} {
		_, attempt, err := escalate.ParseAnswer(text, ids)
		assert.True(t, attempt, text)
		if why == "" {
			assert.NoError(t, err, text) // "bob" after the punctuation is trimmed
			continue
		}
		assert.ErrorContains(t, err, why, text)
	}
	for _, text := range []string{"", "   ", "please sort these numbers for me now"} {
		_, attempt, _ := escalate.ParseAnswer(text, ids)
		assert.False(t, attempt, text)
	}
}

func TestTriggerOf(t *testing.T) {
	assert.Equal(t, escalate.Rejected, escalate.TriggerOf(envelope.StateRejected, "unauthorized"))
	assert.Equal(t, escalate.Failed, escalate.TriggerOf(envelope.StateFailed, "boom"))
	assert.Equal(t, escalate.Stalemate, escalate.TriggerOf(envelope.StateFailed, "stalemate: a and b bounced 4 times"))
	assert.Equal(t, escalate.Deadlock, escalate.TriggerOf(envelope.StateFailed, "deadlock broken: a → b → a: ..."))
	assert.Empty(t, escalate.TriggerOf(envelope.StateCompleted, ""))
}

func TestWords(t *testing.T) {
	e := store.Escalation{ID: "e1", Agent: "alice", TaskID: "t1", Trigger: escalate.Rejected, Asked: "sort 5 3 9 1",
		Attempts: []store.Attempt{{Agent: "bob", Said: "rejected", Reason: "unauthorized"}}, Levels: []string{"dave", "human"}}
	q := escalate.AgentQuestion(e, []string{"erin"}, time.Minute)
	assert.Contains(t, q, "Escalation e1: alice's task t1 is stuck: no one would take it.\n")
	assert.Contains(t, q, "Could take it: erin\n")
	assert.Contains(t, q, "Without an answer within 1m0s, it goes to human.")
	e.Level = 1
	assert.Contains(t, escalate.HumanQuestion(e, nil, time.Hour), "Without an answer within 1h0m0s, the task fails. (escalation e1)")
	assert.Equal(t, `no one would take it (bob: rejected (unauthorized)); escalated to dave, human, no one decided in time`, escalate.Unanswered(e))
	assert.Equal(t, "dave reassigned it to erin: free", escalate.Decided(store.EscalationDecision{Action: store.ActReassign, Agent: "erin", By: "dave", Reason: "free"}))
}
