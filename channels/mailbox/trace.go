package mailbox

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/tracing"
)

// receiveSpan starts the span of m taken from this agent's inbox, a child
// of the span that sent it when m carries its trace context (a message of
// nanobot's starts a new trace).
func (c *Channel) receiveSpan(ctx context.Context, m *envelope.Message, redelivered bool) (context.Context, trace.Span) {
	ctx = tracing.WithParent(ctx, m.Traceparent, m.Tracestate)
	attrs := mailboxAttrs(m)
	if redelivered {
		attrs = append(attrs, tracing.AttrMessagingRedelivered.Bool(true))
	}
	return tracing.StartReceive(ctx, tracing.Message{System: tracing.MailboxSystem,
		Destination: c.cfg.AgentID, ID: m.ID, Conversation: m.ThreadID}, attrs...)
}

// sendSpan starts the span of sending msg, and writes its trace context
// into msg, so that the receiver's work joins this trace.
func sendSpan(ctx context.Context, msg *envelope.Message) (context.Context, trace.Span) {
	ctx, span := tracing.StartSend(ctx, tracing.Message{System: tracing.MailboxSystem,
		Destination: msg.To, ID: msg.ID, Conversation: msg.ThreadID}, mailboxAttrs(msg)...)
	msg.Traceparent, msg.Tracestate = tracing.Parent(ctx)
	return ctx, span
}

// mailboxAttrs are the attributes of m's spans beside the messaging ones.
func mailboxAttrs(m *envelope.Message) []attribute.KeyValue {
	kv := []attribute.KeyValue{tracing.AttrMailboxType.String(string(m.Type)), tracing.AttrMailboxSender.String(m.From)}
	if m.ThreadID != "" {
		kv = append(kv, tracing.AttrMailboxThreadID.String(m.ThreadID))
	}
	if id := m.TaskOf(); id != "" {
		kv = append(kv, tracing.AttrMailboxTaskID.String(id))
	}
	return kv
}
