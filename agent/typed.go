package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// NewTool returns the Tool name whose arguments are an In: Execute
// decodes the call's arguments into an In (see Call.Decode) and calls run;
// the parameters of its Spec are the JSON schema of In, derived as the
// MCP SDK derives a tool's input schema (github.com/google/jsonschema-go:
// a field's JSON name; "omitempty" makes it optional; its jsonschema tag
// is its description), so that one typed definition serves the agent
// loop and an MCP server alike. In must be a struct; NewTool panics when
// no schema can be derived from it (a tool written wrong, as the MCP
// SDK's AddTool panics).
func NewTool[In any](name, description string, run func(ctx context.Context, call Call, in In) (string, error)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("agent.NewTool %q: the schema of its arguments: %v", name, err))
	}
	var params map[string]any
	data, err := json.Marshal(schema)
	if err == nil {
		err = json.Unmarshal(data, &params)
	}
	if err != nil || params["type"] != "object" {
		panic(fmt.Sprintf("agent.NewTool %q: its arguments must be a struct (a JSON object): %v", name, err))
	}
	return &typedTool[In]{spec: ToolSpec{Name: name, Description: description, Parameters: params}, run: run}
}

// typedTool is a Tool made by NewTool.
type typedTool[In any] struct {
	spec ToolSpec
	run  func(context.Context, Call, In) (string, error)
}

func (t *typedTool[In]) Name() string   { return t.spec.Name }
func (t *typedTool[In]) Spec() ToolSpec { return t.spec }

func (t *typedTool[In]) Execute(ctx context.Context, call Call) (string, error) {
	var in In
	if err := call.Decode(&in); err != nil {
		return "", err
	}
	return t.run(ctx, call, in)
}

// Introduced is an optional ability of a Tool: Use says in a few words
// what the tool is for, and the agent loop lists the tools that have one
// in the identity section of the system prompt ("- delegate_task: hand
// a task to another agent, ...").
type Introduced interface {
	Use() string
}
