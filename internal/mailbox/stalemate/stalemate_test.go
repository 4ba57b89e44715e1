package stalemate_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/stalemate"
)

func TestNextCountsRepliesThatSettleNothing(t *testing.T) {
	e := func(b, a int) envelope.Exchange { return envelope.Exchange{Bounces: b, AskedBack: a} }
	for _, tt := range []struct {
		name             string
		orig             envelope.Exchange
		answers, request bool
		want             envelope.Exchange
	}{
		{"a request answered: progress", e(3, 2), true, false, e(0, 0)},
		{"a request answered by a request", e(3, 2), true, true, e(4, 3)},
		{"small talk answered", e(2, 0), false, false, e(3, 0)},
		{"a notice answered by a request", e(2, 0), false, true, e(3, 1)},
		{"the first reply", e(0, 0), false, false, e(1, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, stalemate.Next(tt.orig, tt.answers, tt.request))
		})
	}
	assert.True(t, stalemate.Answers(true, envelope.TypeMessage))
	assert.False(t, stalemate.Answers(true, envelope.TypeTask), "a task is answered by its task_update, not by a message")
	assert.False(t, stalemate.Answers(false, envelope.TypeMessage))
}

// step is one message of an exchange: who sends to whom, whether it asks
// for a reply, and whether it answers the message before it (a reply)
// or only joins the thread (a new message).
type step struct {
	from, to string
	request  bool
	newSend  bool
}

// exchange composes the steps in one thread, on task t1, as the channel
// does (route.Compose with the message answered as Original), and
// returns the index of the first message Check flags (-1: none) and what
// it found.
func exchange(t *testing.T, steps []step, bounces int) (int, stalemate.Stuck) {
	t.Helper()
	var prev *envelope.Message
	for i, s := range steps {
		req := route.Request{To: s.to, Text: "step", ExpectsReply: s.request, TaskID: "t1"}
		var opts route.ComposeOptions
		opts.MaxThreadHops = 1000
		if prev != nil {
			if s.newSend {
				req.ThreadID = prev.ThreadID
			} else {
				require.Equal(t, prev.To, s.from, "step %d answers the message before it", i)
				mt := meta.FromMessage(prev, false)
				opts.Original = &mt
			}
		}
		m, err := route.Compose(s.from, req, opts)
		require.NoError(t, err, "step %d", i)
		// through the wire, as the receiver reads it
		data, err := envelope.Encode(m)
		require.NoError(t, err)
		m, err = envelope.DecodeBytes(data)
		require.NoError(t, err)
		if stuck, ok := stalemate.Check(m, m.Exchange(), bounces); ok {
			return i, stuck
		}
		prev = m
	}
	return -1, stalemate.Stuck{}
}

// pingPong is n messages between a and b, each answering the one before,
// the first a new one; request says which ask for a reply.
func pingPong(n int, request func(i int) bool) []step {
	var out []step
	for i := range n {
		from, to := "a", "b"
		if i%2 == 1 {
			from, to = to, from
		}
		out = append(out, step{from: from, to: to, request: request(i)})
	}
	return out
}

func TestCheckFindsStalematesOfTwoAgentsAndNothingElse(t *testing.T) {
	always := func(int) bool { return true }
	never := func(int) bool { return false }
	questionAnswer := func(i int) bool { return i%2 == 0 } // a asks, b answers, a asks on
	firstOnly := func(i int) bool { return i == 0 }
	relay := func(n int) []step { // a → b → c → a ..., each a new message of the thread
		var out []step
		ids := []string{"a", "b", "c"}
		for i := range n {
			out = append(out, step{from: ids[i%3], to: ids[(i+1)%3], request: true, newSend: true})
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		steps   []step
		bounces int
		at      int // index of the message flagged; -1 none
		rule    stalemate.Rule
	}{
		{"small talk bounces: the 4th reply", pingPong(20, never), 4, 4, stalemate.RuleBounces},
		{"a limit of 6 bounces", pingPong(20, never), 6, 6, stalemate.RuleBounces},
		{"one question answered, then small talk", pingPong(20, firstOnly), 4, 5, stalemate.RuleBounces},
		{"requests answered by requests: two rounds", pingPong(20, always), 4, 4, stalemate.RuleOwed},
		{"requests answered by requests: two rounds, whatever the bounce limit", pingPong(20, always), 10, 4, stalemate.RuleOwed},
		{"questions answered, round after round: progress", pingPong(40, questionAnswer), 4, -1, ""},
		{"three agents relaying in one thread", relay(30), 4, -1, ""},
		{"off", pingPong(20, always), 0, -1, ""},
		{"fewer replies than the limit", pingPong(4, never), 4, -1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at, stuck := exchange(t, tt.steps, tt.bounces)
			assert.Equal(t, tt.at, at)
			assert.Equal(t, tt.rule, stuck.Rule)
			if at < 0 {
				return
			}
			s := tt.steps[at]
			assert.Equal(t, s.from, stuck.From)
			assert.Equal(t, s.to, stuck.To)
			assert.Equal(t, "t1", stuck.TaskID)
			assert.True(t, strings.HasPrefix(stuck.String(), "stalemate: "+s.to+" and "+s.from+" "), stuck.String())
		})
	}
}

func TestStalemateComesBeforeTheHopCap(t *testing.T) {
	// the default cap (maxThreadHops 20) and the default bounce limit
	at, _ := exchange(t, pingPong(21, func(int) bool { return false }), stalemate.DefaultBounces)
	require.Equal(t, 4, at)
	assert.Less(t, at, 20, "the hop cap would have stopped the 20th reply")
	assert.Equal(t, stalemate.DefaultBounces, limits.DefaultConfig().Bounces, "channels.mailbox.limits.bounces")
}

func TestCheckIgnoresWhatIsNoReply(t *testing.T) {
	m := &envelope.Message{ID: "m1", From: "a", To: "b", Type: envelope.TypeMessage,
		Metadata: map[string]any{envelope.MetaExchange: map[string]any{"bounces": 99.0, "asked_back": 99.0}}}
	_, ok := stalemate.Check(m, m.Exchange(), 4)
	assert.False(t, ok, "a new message starts a chain, whatever it claims")
	m.ReplyTo = "m0"
	_, ok = stalemate.Check(m, m.Exchange(), 4)
	assert.True(t, ok)
	m.Type = envelope.TypeTaskUpdate
	_, ok = stalemate.Check(m, m.Exchange(), 4)
	assert.False(t, ok, "a task_update ends a task; it is not small talk")
}

func TestReasonSaysWhoAndHowOften(t *testing.T) {
	s := stalemate.Stuck{Rule: stalemate.RuleBounces, From: "b", To: "a", MessageID: "m9", ThreadID: "th", TaskID: "t1", Count: 4, Limit: 4}
	assert.Equal(t, "stalemate: a and b bounced replies back and forth 4 times on task t1 without settling a reply owed "+
		"(channels.mailbox.limits.bounces: 4); the 4th, b's reply m9 to a, was set aside", s.String())
	s.Rule, s.TaskID = stalemate.RuleOwed, ""
	assert.Equal(t, "stalemate: a and b answered each other's requests with new requests 4 times in a row (2 rounds) in thread th: "+
		"the replies owed did not shrink; the 4th, b's reply m9 to a, was set aside", s.String())
}
