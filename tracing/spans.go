package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/clock"
)

// The attributes of OpenTelemetry's semantic conventions that switchboard
// sets (messaging and GenAI), and its own.
const (
	AttrMessagingSystem          = attribute.Key("messaging.system")
	AttrMessagingOperationType   = attribute.Key("messaging.operation.type")
	AttrMessagingOperationName   = attribute.Key("messaging.operation.name")
	AttrMessagingDestinationName = attribute.Key("messaging.destination.name")
	AttrMessagingMessageID       = attribute.Key("messaging.message.id")
	AttrMessagingConversationID  = attribute.Key("messaging.message.conversation_id")

	AttrGenAIOperationName    = attribute.Key("gen_ai.operation.name")
	AttrGenAIAgentName        = attribute.Key("gen_ai.agent.name")
	AttrGenAIConversationID   = attribute.Key("gen_ai.conversation.id")
	AttrGenAIRequestModel     = attribute.Key("gen_ai.request.model")
	AttrGenAIResponseModel    = attribute.Key("gen_ai.response.model")
	AttrGenAIFinishReasons    = attribute.Key("gen_ai.response.finish_reasons")
	AttrGenAIInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	AttrGenAIOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	AttrGenAICacheReadTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	AttrGenAICacheWriteTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	AttrGenAIToolName         = attribute.Key("gen_ai.tool.name")
	AttrGenAIToolCallID       = attribute.Key("gen_ai.tool.call.id")
	AttrGenAIToolType         = attribute.Key("gen_ai.tool.type")
	AttrMailboxType           = attribute.Key("switchboard.mailbox.type")
	AttrMailboxThreadID       = attribute.Key("switchboard.mailbox.thread_id")
	AttrMailboxTaskID         = attribute.Key("switchboard.mailbox.task_id")
	AttrMailboxSender         = attribute.Key("switchboard.mailbox.from")
	AttrChannelSessionKey     = attribute.Key("switchboard.session_key")
	AttrMessagingRedelivered  = attribute.Key("switchboard.redelivered")
)

// The gen_ai.operation.name values of the agent loop's spans.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// MailboxSystem is the messaging.system of the mailbox's spans.
const MailboxSystem = "switchboard.mailbox"

// Message names one message for a messaging span.
type Message struct {
	// System is messaging.system: the chat channel's name ("feishu") or
	// MailboxSystem.
	System string
	// Destination is messaging.destination.name: the chat, or the agent
	// whose inbox it is.
	Destination string
	// ID is messaging.message.id ("" when unknown).
	ID string
	// Conversation is messaging.message.conversation_id (a chat's session
	// key, a mailbox thread id).
	Conversation string
	// Clock is the time the span starts at (nil: the real clock); end it
	// with EndAt on the same clock.
	Clock clock.Clock
}

func (m Message) attrs(op string) []attribute.KeyValue {
	kv := []attribute.KeyValue{AttrMessagingSystem.String(m.System),
		AttrMessagingOperationType.String(op), AttrMessagingOperationName.String(op),
		AttrMessagingDestinationName.String(m.Destination)}
	if m.ID != "" {
		kv = append(kv, AttrMessagingMessageID.String(m.ID))
	}
	if m.Conversation != "" {
		kv = append(kv, AttrMessagingConversationID.String(m.Conversation))
	}
	return kv
}

// StartReceive starts the consumer span "receive <destination>" of a
// message taken in, as a child of the span in ctx (see Extract).
func StartReceive(ctx context.Context, m Message, extra ...attribute.KeyValue) (context.Context, trace.Span) {
	return start(ctx, "receive", trace.SpanKindConsumer, m, extra)
}

// start starts the span of m for op ("receive", "send"). Its attributes
// are set only when it is recorded: without a TracerProvider (tracing
// off) a message costs no attribute list.
func start(ctx context.Context, op string, kind trace.SpanKind, m Message, extra []attribute.KeyValue) (context.Context, trace.Span) {
	ctx, span := Tracer().Start(ctx, op+" "+m.Destination, append(StartAt(m.Clock), trace.WithSpanKind(kind))...)
	if span.IsRecording() {
		span.SetAttributes(append(m.attrs(op), extra...)...)
	}
	return ctx, span
}

// StartSend starts the producer span "send <destination>" of a message
// sent out, as a child of the span in ctx.
func StartSend(ctx context.Context, m Message, extra ...attribute.KeyValue) (context.Context, trace.Span) {
	return start(ctx, "send", trace.SpanKindProducer, m, extra)
}
