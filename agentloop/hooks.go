package agentloop

import (
	"context"
	"errors"
)

// errProviderNoAnswer is the error of a provider call that returned neither
// an answer nor an error.
var errProviderNoAnswer = errors.New("provider returned no answer")

// Usage is what one provider call cost, as the server reported it.
type Usage struct {
	// InputTokens are the tokens the request was read as (prompt tokens).
	InputTokens int64
	// OutputTokens are the tokens of the answer (completion tokens).
	OutputTokens int64
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// Total is InputTokens + OutputTokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Hook observes the work of a loop, and may refuse a provider call. Metrics,
// traces, budgets and the record of token usage hang on it. Each method is
// called when a step starts; it returns the context the step runs under
// (a tracer puts its span there) and a function the loop calls once, when
// the step ends. Embed NopHook to implement only part of it.
type Hook interface {
	// Turn is called when a turn starts on t; end gets the turn's error
	// (nil when it answered) and the usage of all its provider calls.
	Turn(ctx context.Context, t *Turn) (context.Context, func(err error, usage Usage))
	// Chat is called before each provider call, including a task's
	// judgement (t is then nil). A non-nil error refuses the call: the
	// provider is not asked and the step fails with that error (a
	// *TaskFailure tells the agent that delegated the task why). end gets
	// the answer (nil on error) and the call's error.
	Chat(ctx context.Context, t *Turn, req *Request) (context.Context, func(resp *Response, err error), error)
	// Tool is called before each tool call; end gets its result text and
	// whether the tool reported an error.
	Tool(ctx context.Context, t *Turn, c ToolCall) (context.Context, func(result string, failed bool))
}

// NopHook is a Hook that does nothing; embed it to implement part of Hook.
type NopHook struct{}

func nopTurnEnd(error, Usage)     {}
func nopChatEnd(*Response, error) {}
func nopToolEnd(string, bool)     {}

// Turn implements Hook.
func (NopHook) Turn(ctx context.Context, _ *Turn) (context.Context, func(error, Usage)) {
	return ctx, nopTurnEnd
}

// Chat implements Hook.
func (NopHook) Chat(ctx context.Context, _ *Turn, _ *Request) (context.Context, func(*Response, error), error) {
	return ctx, nopChatEnd, nil
}

// Tool implements Hook.
func (NopHook) Tool(ctx context.Context, _ *Turn, _ ToolCall) (context.Context, func(string, bool)) {
	return ctx, nopToolEnd
}

// hooks runs a list of hooks as one, in order on start and in reverse
// order on end.
type hooks []Hook

func (hs hooks) turn(ctx context.Context, t *Turn) (context.Context, func(error, Usage)) {
	if len(hs) == 0 {
		return ctx, nopTurnEnd
	}
	ends := make([]func(error, Usage), 0, len(hs))
	for _, h := range hs {
		var end func(error, Usage)
		ctx, end = h.Turn(ctx, t)
		ends = append(ends, end)
	}
	return ctx, func(err error, u Usage) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err, u)
		}
	}
}

// chat asks p through the hooks: a hook's refusal is the call's error.
func (hs hooks) chat(ctx context.Context, p Provider, t *Turn, req Request) (*Response, error) {
	ends := make([]func(*Response, error), 0, len(hs))
	finish := func(resp *Response, err error) (*Response, error) {
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
	if err != nil {
		resp = nil
	}
	return finish(resp, err)
}

func (hs hooks) tool(ctx context.Context, t *Turn, c ToolCall) (context.Context, func(string, bool)) {
	if len(hs) == 0 {
		return ctx, nopToolEnd
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
