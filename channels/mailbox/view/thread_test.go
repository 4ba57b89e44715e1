package view_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/view"
)

func TestThreadOfSurvivesReplyCycles(t *testing.T) {
	mk := func(id, replyTo string, at time.Duration) store.Stored {
		return store.Stored{Ref: id, Message: &envelope.Message{ID: id, From: "a", To: "b", ReplyTo: replyTo,
			Timestamp: envelope.NewTime(convT0.Add(at))}}
	}
	chain := view.ThreadOf([]store.Stored{mk("x", "y", 0), mk("y", "x", time.Second), mk("z", "", 0)}, "x")
	require.Len(t, chain, 2)
	assert.Equal(t, "x", chain[0].Message.ID)
	assert.Equal(t, "y", chain[1].Message.ID)
}
