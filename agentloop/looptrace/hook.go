package looptrace

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/tracing"
)

// Hook makes the loop's spans; see the package comment.
type Hook struct {
	agent string
}

var _ agent.Hook = Hook{}

// New returns the hook of the agent called agent (gen_ai.agent.name; ""
// names none).
func New(agent string) Hook { return Hook{agent: agent} }

// Turn implements agentloop.Hook: the span "invoke_agent <agent>".
func (h Hook) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	ctx = tracing.Extract(ctx, t.Inbound.TraceContext)
	name := tracing.OpInvokeAgent
	if h.agent != "" {
		name += " " + h.agent
	}
	ctx, span := tracing.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(tracing.AttrGenAIOperationName.String(tracing.OpInvokeAgent),
			tracing.AttrGenAIConversationID.String(t.SessionKey)))
	if h.agent != "" {
		span.SetAttributes(tracing.AttrGenAIAgentName.String(h.agent))
	}
	return ctx, func(err error, u agent.Usage) {
		setUsage(span, u)
		tracing.End(span, err)
	}
}

// Chat implements agentloop.Hook: the span "chat <model>" of one provider
// call (a task's judgement included).
func (h Hook) Chat(ctx context.Context, t *agent.Turn, req *agent.Request) (context.Context, func(*agent.Response, error), error) {
	name := tracing.OpChat
	if req.Model != "" {
		name += " " + req.Model
	}
	ctx, span := tracing.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(tracing.AttrGenAIOperationName.String(tracing.OpChat)))
	if req.Model != "" {
		span.SetAttributes(tracing.AttrGenAIRequestModel.String(req.Model))
	}
	if h.agent != "" {
		span.SetAttributes(tracing.AttrGenAIAgentName.String(h.agent))
	}
	if t != nil {
		span.SetAttributes(tracing.AttrGenAIConversationID.String(t.SessionKey))
	}
	return ctx, func(resp *agent.Response, err error) {
		if resp != nil {
			if resp.Model != "" {
				span.SetAttributes(tracing.AttrGenAIResponseModel.String(resp.Model))
			}
			if resp.FinishReason != "" {
				span.SetAttributes(tracing.AttrGenAIFinishReasons.StringSlice([]string{resp.FinishReason}))
			}
			setUsage(span, resp.Usage)
		}
		tracing.End(span, err)
	}, nil
}

// Tool implements agentloop.Hook: the span "execute_tool <tool>".
func (h Hook) Tool(ctx context.Context, _ *agent.Turn, c agent.ToolCall) (context.Context, func(string, bool)) {
	ctx, span := tracing.Tracer().Start(ctx, tracing.OpExecuteTool+" "+c.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(tracing.AttrGenAIOperationName.String(tracing.OpExecuteTool),
			tracing.AttrGenAIToolName.String(c.Name), tracing.AttrGenAIToolCallID.String(c.ID),
			tracing.AttrGenAIToolType.String("function")))
	return ctx, func(result string, failed bool) {
		if failed {
			span.SetStatus(codes.Error, clip(result))
		}
		span.End()
	}
}

// setUsage sets the token counts of u, when the provider reported any.
func setUsage(span trace.Span, u agent.Usage) {
	if u == (agent.Usage{}) {
		return
	}
	span.SetAttributes(tracing.AttrGenAIInputTokens.Int64(u.InputTokens), tracing.AttrGenAIOutputTokens.Int64(u.OutputTokens))
	if u.CachedTokens > 0 {
		span.SetAttributes(tracing.AttrGenAICacheReadTokens.Int64(u.CachedTokens))
	}
	if u.CacheWriteTokens > 0 {
		span.SetAttributes(tracing.AttrGenAICacheWriteTokens.Int64(u.CacheWriteTokens))
	}
}

// clip shortens a tool's error for a span status.
func clip(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "…"
}
