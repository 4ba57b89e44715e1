package agent

import "context"

// Usage is what one provider call cost, as the server reported it.
type Usage struct {
	// InputTokens are the tokens the request was read as (prompt tokens),
	// those served from the provider's prompt cache included.
	InputTokens int64
	// OutputTokens are the tokens of the answer (completion tokens).
	OutputTokens int64
	// CachedTokens are the part of InputTokens the provider read from its
	// prompt cache (OpenAI's prompt_tokens_details.cached_tokens,
	// Anthropic's cache_read_input_tokens): billed at a fraction of the
	// price.
	CachedTokens int64
	// CacheWriteTokens are the part of InputTokens the provider wrote to
	// its prompt cache (Anthropic's cache_creation_input_tokens; OpenAI
	// reports none).
	CacheWriteTokens int64
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CachedTokens: u.CachedTokens + v.CachedTokens, CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens}
}

// CacheHit reports whether the call read part of its prompt from the
// provider's prompt cache.
func (u Usage) CacheHit() bool { return u.CachedTokens > 0 }

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
