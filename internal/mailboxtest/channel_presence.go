package mailboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testChannelPresence: a started agent is registered and online with its
// capabilities; a stopped one is offline; a second start of the same
// agent fails while the first runs.
func (s *suite) testChannelPresence(t *testing.T) {
	w := s.world(t)
	bob := w.startAgent(t, "bob", func(c *mailbox.Config) { c.Capabilities = []string{"sort"} })
	reader := w.open(t, nil)
	agents, err := view.ListAgents(testkit.Ctx(t), reader, time.Now(), 30*time.Second, true)
	require.NoError(t, err)
	require.Len(t, agents, 1)
	assert.Equal(t, "bob", agents[0].AgentID)
	assert.Equal(t, envelope.StatusIdle, agents[0].Effective)
	assert.True(t, agents[0].HasCapability("sort"))

	twin, err := mailbox.New(bob.ch.Config(), bob.bus, mailbox.Options{Backend: w.open(t, nil)})
	require.NoError(t, err)
	assert.Error(t, twin.Start(testkit.Ctx(t)), "the same agent twice")

	bob.stop(t)
	card, err := reader.Card(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.EffectiveStatus(time.Now(), 30*time.Second))
}

// testChannelRestart: a task accepted but not finished when its agent
// stops comes back when the agent starts again, marked redelivered, and
// its result still reaches the sender.
func (s *suite) testChannelRestart(t *testing.T) {
	w := s.world(t)
	alice := w.startAgent(t, "alice", nil)
	be := w.open(t, nil)
	bob := w.startOn(t, be, nil, "bob", nil)
	alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "long job"})
	first := metaOf(t, bob.recv(t))
	assert.Equal(t, envelope.StateAccepted, metaOf(t, alice.recv(t)).Task.State)
	bob.stop(t)

	bob = w.startOn(t, be, nil, "bob", nil)
	again := bob.recv(t)
	am := metaOf(t, again)
	assert.Equal(t, first.MessageID, am.MessageID)
	assert.True(t, am.Redelivered, "marked redelivered")
	require.NoError(t, bob.ch.Send(testkit.Ctx(t), busReply("alice", "finished", again.Metadata)))
	for i := 0; ; i++ {
		st := metaOf(t, alice.recv(t)).Task.State
		if st == envelope.StateCompleted {
			break
		}
		require.Less(t, i, 2, "updates until completed; got %s", st)
		assert.Equal(t, envelope.StateAccepted, st, "accepted again after the restart")
	}
}
