package scripted

import "github.com/switchboard-dev/switchboard/agent"

// Model is the model name the scripted provider reports in its answers.
const Model = "scripted"

// usageOf counts the tokens of a call as a rough model would: one token per
// four bytes of text (at least one per message), so that budgets, caps and
// usage records can be tried without a model. The count is deterministic.
func usageOf(req agent.Request, resp *agent.Response) agent.Usage {
	var in int64
	for _, m := range req.Messages {
		in += tokens(m.Content)
		for _, c := range m.ToolCalls {
			in += tokens(c.Name) + tokens(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += tokens(t.Name) + tokens(t.Description)
	}
	out := tokens(resp.Content)
	for _, c := range resp.ToolCalls {
		out += tokens(c.Name) + tokens(c.Arguments)
	}
	return agent.Usage{InputTokens: in, OutputTokens: out}
}

// tokens estimates the tokens of s: a quarter of its bytes, at least one.
func tokens(s string) int64 {
	return int64(len(s)+3)/4 + 1
}
