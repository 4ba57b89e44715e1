package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
)

type greetArgs struct {
	Name  string  `json:"name" jsonschema:"who to greet"`
	Times float64 `json:"times,omitempty" jsonschema:"how often"`
}

func TestNewTool(t *testing.T) {
	t.Parallel()
	tool := agent.NewTool("greet", "Greet someone.", func(_ context.Context, c agent.Call, in greetArgs) (string, error) {
		if in.Name == "" {
			return "", errors.New("name is empty")
		}
		return "hello " + in.Name + " from " + c.Inbound().Channel, nil
	})
	assert.Equal(t, "greet", tool.Name())
	spec := tool.Spec()
	assert.Equal(t, "greet", spec.Name)
	assert.Equal(t, "Greet someone.", spec.Description)
	assert.Equal(t, "object", spec.Parameters["type"])
	assert.Equal(t, []any{"name"}, spec.Parameters["required"], "omitempty makes a field optional")
	props := spec.Parameters["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "string", "description": "who to greet"}, props["name"])
	assert.Equal(t, map[string]any{"type": "number", "description": "how often"}, props["times"])

	turn := agent.NewTurn(busMessage("feishu"))
	out, err := tool.Execute(context.Background(), agent.Call{Name: "greet", Arguments: `{"name":"ada"}`, Turn: turn})
	require.NoError(t, err)
	assert.Equal(t, "hello ada from feishu", out)
	_, err = tool.Execute(context.Background(), agent.Call{Name: "greet", Arguments: `[]`})
	assert.ErrorContains(t, err, "arguments of greet are not the JSON object its schema asks for")
	_, err = tool.Execute(context.Background(), agent.Call{Name: "greet"})
	assert.EqualError(t, err, "name is empty", "no arguments are an empty object")
}

func TestNewToolWantsAStruct(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() {
		agent.NewTool("bad", "", func(context.Context, agent.Call, []string) (string, error) { return "", nil })
	})
}
