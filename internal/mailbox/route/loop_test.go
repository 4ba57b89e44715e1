package route_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// A task is never a reply: back to an agent in its trace it is a loop,
// whatever its reply_to; a message with reply_to and an update travel back.
func TestIsLoopTaskWithReplyTo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		m    envelope.Message
		want bool
	}{
		{"task back, reply_to set", envelope.Message{Type: envelope.TypeTask, Trace: []string{"lead", "worker"}, ReplyTo: "m1"}, true},
		{"task back", envelope.Message{Type: envelope.TypeTask, Trace: []string{"lead", "worker"}}, true},
		{"reply", envelope.Message{Type: envelope.TypeMessage, Trace: []string{"lead", "worker"}, ReplyTo: "m1"}, false},
		{"update", envelope.Message{Type: envelope.TypeTaskUpdate, Trace: []string{"lead", "worker"}}, false},
		{"new task elsewhere", envelope.Message{Type: envelope.TypeTask, Trace: []string{"worker"}, ReplyTo: "m1"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, route.IsLoop(&tt.m, "lead"))
		})
	}
}

// Original never makes a new task a reply, even sent back to the agent
// whose task is handled, with that task's id as reply_to.
func TestOriginalOfATaskBack(t *testing.T) {
	t.Parallel()
	parent := &meta.Meta{MessageID: "m1", From: "lead", To: "worker", Type: envelope.TypeTask, Task: &envelope.Task{ID: "t1"}}
	recent := func(string) (meta.Meta, bool) { return *parent, true }
	for _, reply := range []string{"", "m1"} {
		req := route.Request{To: "lead", Type: envelope.TypeTask, Parent: parent, ReplyTo: reply}
		assert.Nil(t, route.Original(req, recent, 3), "reply_to %q", reply)
	}
	req := route.Request{To: "lead", Parent: parent}
	assert.Equal(t, "m1", route.Original(req, recent, 3).MessageID, "a message back is a reply")
}
