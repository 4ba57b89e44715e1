package route_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

func TestComposeTaskBudget(t *testing.T) {
	t.Parallel()
	parent := &meta.Meta{MessageID: "m1", From: "boss", To: "worker", Type: envelope.TypeTask, TTL: 2,
		Task: &envelope.Task{ID: "task_1", Budget: &envelope.Budget{Tokens: 900, Cost: 0.1}}}
	tests := []struct {
		name string
		req  route.Request
		want *envelope.Budget
	}{
		{"none", route.Request{To: "helper", Type: envelope.TypeTask}, nil},
		{"own", route.Request{To: "helper", Type: envelope.TypeTask, Budget: &envelope.Budget{Tokens: 50}},
			&envelope.Budget{Tokens: 50}},
		{"inherited from the task being handled", route.Request{To: "helper", Type: envelope.TypeTask, Parent: parent},
			&envelope.Budget{Tokens: 900, Cost: 0.1}},
		{"own wins over the parent's", route.Request{To: "helper", Type: envelope.TypeTask, Parent: parent,
			Budget: &envelope.Budget{Tokens: 300}}, &envelope.Budget{Tokens: 300}},
		{"a bound of nothing is none", route.Request{To: "helper", Type: envelope.TypeTask, Budget: &envelope.Budget{}}, nil},
		{"messages carry none", route.Request{To: "helper", Budget: &envelope.Budget{Tokens: 5}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := route.Compose("worker", tt.req, route.ComposeOptions{})
			require.NoError(t, err)
			if m.Task == nil {
				assert.Nil(t, tt.want)
				return
			}
			assert.Equal(t, tt.want, m.Task.Budget)
			if tt.req.Budget != nil && m.Task.Budget != nil {
				assert.NotSame(t, tt.req.Budget, m.Task.Budget, "the message has its own copy")
			}
		})
	}
}
