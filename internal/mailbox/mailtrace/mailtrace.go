package mailtrace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/tracing"
)

// End ends a span, recording err as its error when not nil.
type End func(err error)

// Send starts the span of sending msg, a child of the span in ctx, at
// clk's time (nil: the real clock), and writes its trace context into
// msg, so that the receiver's work joins this trace. The returned ctx
// holds the span; end it with the returned End.
func Send(ctx context.Context, clk clock.Clock, msg *envelope.Message) (context.Context, End) {
	ctx, span := tracing.StartSend(ctx, tracing.Message{System: tracing.MailboxSystem, Destination: msg.To,
		ID: msg.ID, Conversation: msg.ThreadID, Clock: clk})
	if span.IsRecording() { // attributes cost nothing with tracing off
		span.SetAttributes(Attrs(msg)...)
	}
	msg.Traceparent, msg.Tracestate = tracing.Parent(ctx)
	return ctx, func(err error) { tracing.EndAt(span, err, clk) }
}

// Receive starts the span of agent taking msg from its inbox, a child of
// the span that sent it when msg carries its trace context, at clk's time
// (nil: the real clock).
func Receive(ctx context.Context, clk clock.Clock, agent string, msg *envelope.Message, redelivered bool) (context.Context, End) {
	ctx = tracing.WithParent(ctx, msg.Traceparent, msg.Tracestate)
	ctx, span := tracing.StartReceive(ctx, tracing.Message{System: tracing.MailboxSystem, Destination: agent,
		ID: msg.ID, Conversation: msg.ThreadID, Clock: clk})
	if span.IsRecording() { // attributes cost nothing with tracing off
		span.SetAttributes(Attrs(msg)...)
		if redelivered {
			span.SetAttributes(tracing.AttrMessagingRedelivered.Bool(true))
		}
	}
	return ctx, func(err error) { tracing.EndAt(span, err, clk) }
}

// Deliverer puts a message in its recipient's inbox (a *store.Store).
type Deliverer interface {
	Deliver(ctx context.Context, msg *envelope.Message) error
}

// Deliver delivers msg through d in the span of sending it (see Send).
func Deliver(ctx context.Context, clk clock.Clock, d Deliverer, msg *envelope.Message) error {
	ctx, end := Send(ctx, clk, msg)
	err := d.Deliver(ctx, msg)
	end(err)
	return err
}

// Attrs are the attributes of msg's spans beside the messaging ones:
// switchboard.mailbox.type, .from, .thread_id and .task_id.
func Attrs(msg *envelope.Message) []attribute.KeyValue {
	kv := []attribute.KeyValue{tracing.AttrMailboxType.String(string(msg.Type)), tracing.AttrMailboxSender.String(msg.From)}
	if msg.ThreadID != "" {
		kv = append(kv, tracing.AttrMailboxThreadID.String(msg.ThreadID))
	}
	if id := msg.TaskOf(); id != "" {
		kv = append(kv, tracing.AttrMailboxTaskID.String(id))
	}
	return kv
}
