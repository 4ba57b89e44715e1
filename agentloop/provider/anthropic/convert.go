package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// toParams maps an agentloop request to a Messages request.
func toParams(model string, req agent.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	params := sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: int64(maxTokens),
		Temperature: sdk.Float(min(max(req.Temperature, 0), 1))}
	var system []string
	for i, m := range req.Messages {
		if m.Role == agent.RoleSystem {
			system = append(system, m.Content)
			continue
		}
		role, blocks, err := toBlocks(m)
		if err != nil {
			return params, fmt.Errorf("anthropic provider: message %d: %w", i, err)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(params.Messages); n > 0 && params.Messages[n-1].Role == role {
			params.Messages[n-1].Content = append(params.Messages[n-1].Content, blocks...)
			continue
		}
		params.Messages = append(params.Messages, sdk.MessageParam{Role: role, Content: blocks})
	}
	if text := strings.Join(system, "\n\n"); text != "" {
		params.System = []sdk.TextBlockParam{{Text: text}}
	}
	for _, spec := range req.Tools {
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: toTool(spec)})
	}
	markCache(&params)
	return params, nil
}

// markCache sets Anthropic's prompt cache breakpoints (cache_control,
// ephemeral: five minutes) on the stable prefix and on the conversation.
// The API reads a request as tools, system, messages; a breakpoint caches
// everything before it. The first goes on the system prompt (on the last
// tool when there is none), which the loop keeps the same from call to
// call: the tool schemas and the system prompt are read from the cache by
// every call after the first. The second goes on the last block of the
// last message, so that the next call, which carries this conversation
// and more (the tool results, the next message), reads it from the cache
// too. A prefix shorter than the model's minimum is not cached, and costs
// nothing more.
func markCache(params *sdk.MessageNewParams) {
	switch {
	case len(params.System) > 0:
		params.System[len(params.System)-1].CacheControl = sdk.NewCacheControlEphemeralParam()
	case len(params.Tools) > 0:
		if t := params.Tools[len(params.Tools)-1].OfTool; t != nil {
			t.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
	}
	if n := len(params.Messages); n > 0 {
		blocks := params.Messages[n-1].Content
		if k := len(blocks); k > 0 {
			if cc := blocks[k-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
			}
		}
	}
}

// toBlocks returns the role and content blocks of a message that is not a
// system message. Empty text is left out (the API refuses it).
func toBlocks(m agent.Message) (sdk.MessageParamRole, []sdk.ContentBlockParamUnion, error) {
	var blocks []sdk.ContentBlockParamUnion
	switch m.Role {
	case agent.RoleUser:
		if m.Content != "" {
			blocks = append(blocks, sdk.NewTextBlock(m.Content))
		}
		return sdk.MessageParamRoleUser, blocks, nil
	case agent.RoleAssistant:
		if m.Content != "" {
			blocks = append(blocks, sdk.NewTextBlock(m.Content))
		}
		for _, tc := range m.ToolCalls {
			blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, arguments(tc.Arguments), tc.Name))
		}
		return sdk.MessageParamRoleAssistant, blocks, nil
	case agent.RoleTool:
		content := m.Content
		if content == "" {
			content = "(no output)"
		}
		isError := strings.HasPrefix(content, "error: ")
		return sdk.MessageParamRoleUser, []sdk.ContentBlockParamUnion{sdk.NewToolResultBlock(m.ToolCallID, content, isError)}, nil
	}
	return "", nil, fmt.Errorf("unknown role %q", m.Role)
}

// arguments returns a tool call's arguments as the JSON object the API
// wants ({} when they are empty or not an object).
func arguments(s string) json.RawMessage {
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// toTool maps a tool spec; its JSON schema's properties and required keys
// go where the API wants them, any other keys along with them.
func toTool(spec agent.ToolSpec) *sdk.ToolParam {
	schema := sdk.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range spec.Parameters {
		switch k {
		case "type":
		case "properties":
			schema.Properties = v
		case "required":
			schema.Required = toStrings(v)
		default:
			schema.ExtraFields[k] = v
		}
	}
	t := &sdk.ToolParam{Name: spec.Name, InputSchema: schema}
	if spec.Description != "" {
		t.Description = sdk.String(spec.Description)
	}
	return t
}

func toStrings(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// fromMessage maps the answer to a Response.
func fromMessage(msg *sdk.Message) (*agent.Response, error) {
	if msg == nil {
		return nil, errors.New("anthropic provider: the server's answer is empty")
	}
	// Anthropic counts the tokens read from and written to its prompt cache
	// apart from InputTokens; all of them were read as the request.
	u := msg.Usage
	in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	resp := &agent.Response{FinishReason: finishReason(string(msg.StopReason)), Model: string(msg.Model),
		Usage: agent.Usage{InputTokens: in, OutputTokens: u.OutputTokens,
			CachedTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args := string(b.Input)
			if args == "" || args == "null" {
				args = "{}"
			}
			resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	resp.Content = strings.Join(text, "")
	return resp, nil
}

// finishReason names a stop reason as agentloop (and OpenAI) do.
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	}
	return stop
}
