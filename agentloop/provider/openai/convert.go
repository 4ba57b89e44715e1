package openai

import (
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// namePattern is what the API accepts as a participant name; other names
// are left out rather than making the request fail.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// toParams maps an agentloop request to a chat completion request.
func toParams(model string, req agent.Request) (oai.ChatCompletionNewParams, error) {
	params := oai.ChatCompletionNewParams{Model: model, Temperature: oai.Float(req.Temperature)}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
	}
	for i, m := range req.Messages {
		msg, err := toMessage(m)
		if err != nil {
			return params, fmt.Errorf("openai provider: message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, spec := range req.Tools {
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        spec.Name,
			Description: oai.String(spec.Description),
			Parameters:  shared.FunctionParameters(spec.Parameters),
		}))
	}
	return params, nil
}

func toMessage(m agent.Message) (oai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case agent.RoleSystem:
		return oai.SystemMessage(m.Content), nil
	case agent.RoleUser:
		u := oai.ChatCompletionUserMessageParam{}
		u.Content.OfString = oai.String(m.Content)
		if namePattern().MatchString(m.Name) {
			u.Name = oai.String(m.Name)
		}
		return oai.ChatCompletionMessageParamUnion{OfUser: &u}, nil
	case agent.RoleAssistant:
		a := oai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = oai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
				},
			})
		}
		return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case agent.RoleTool:
		return oai.ToolMessage(m.Content, m.ToolCallID), nil
	}
	return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// fromCompletion maps the first choice of a completion to a Response.
func fromCompletion(c *oai.ChatCompletion) (*agent.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return nil, errors.New("openai provider: the server's answer has no choices")
	}
	choice := c.Choices[0]
	resp := &agent.Response{Content: choice.Message.Content, FinishReason: choice.FinishReason, Model: c.Model,
		Usage: agent.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}}
	if resp.Content == "" && choice.Message.Refusal != "" {
		resp.Content = choice.Message.Refusal
	}
	for _, tc := range choice.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return resp, nil
}
