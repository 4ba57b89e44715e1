package agentloop

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/agent"
)

// errProviderNoAnswer is the error of a provider call that returned neither
// an answer nor an error.
var errProviderNoAnswer = errors.New("provider returned no answer")

// errNegativeUsage is the error of a provider call whose answer reports
// negative token usage.
var errNegativeUsage = errors.New("provider reported negative token usage")

// hooks runs a list of hooks as one, in order on start and in reverse
// order on end.
type hooks []agent.Hook

func (hs hooks) turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	if len(hs) == 0 {
		return ctx, func(error, agent.Usage) {}
	}
	ends := make([]func(error, agent.Usage), 0, len(hs))
	for _, h := range hs {
		var end func(error, agent.Usage)
		ctx, end = h.Turn(ctx, t)
		ends = append(ends, end)
	}
	return ctx, func(err error, u agent.Usage) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err, u)
		}
	}
}

// chat asks p through the hooks: a hook's refusal is the call's error.
func (hs hooks) chat(ctx context.Context, p agent.Provider, t *agent.Turn, req agent.Request) (*agent.Response, error) {
	ends := make([]func(*agent.Response, error), 0, len(hs))
	finish := func(resp *agent.Response, err error) (*agent.Response, error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](resp, err)
		}
		return resp, err
	}
	for _, h := range hs {
		c, end, err := h.Chat(ctx, t, &req)
		if err != nil {
			end(nil, err)
			return finish(nil, err)
		}
		ctx = c
		ends = append(ends, end)
	}
	resp, err := p.Chat(ctx, req)
	if err == nil && resp == nil {
		resp, err = nil, errProviderNoAnswer
	}
	if err == nil && (resp.Usage.InputTokens < 0 || resp.Usage.OutputTokens < 0) {
		// Invalid: counted, it would free budget the task spent.
		resp, err = nil, fmt.Errorf("%w (input %d, output %d tokens): its answer is refused",
			errNegativeUsage, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	}
	if err != nil {
		resp = nil
	}
	return finish(resp, err)
}

func (hs hooks) tool(ctx context.Context, t *agent.Turn, c agent.ToolCall) (context.Context, func(string, bool)) {
	if len(hs) == 0 {
		return ctx, func(string, bool) {}
	}
	ends := make([]func(string, bool), 0, len(hs))
	for _, h := range hs {
		var end func(string, bool)
		ctx, end = h.Tool(ctx, t, c)
		ends = append(ends, end)
	}
	return ctx, func(res string, failed bool) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](res, failed)
		}
	}
}
