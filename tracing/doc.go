// Package tracing is switchboard's OpenTelemetry instrumentation: the
// spans of the chat message received and sent, of the mailbox's send and
// receive (OpenTelemetry's messaging conventions), and the W3C trace
// context carried by bus messages (bus.InboundMessage.TraceContext) and
// mailbox messages (envelope.Message.Traceparent), so that one user's
// question and everything it causes, across agent processes and
// machines, is one trace.
//
// It uses OpenTelemetry's global TracerProvider, which does nothing until
// a program installs one (package tracing/otlp does, from the
// configuration and the OTEL_ environment variables): instrumented code
// then costs a few nanoseconds per span and exports nothing.
// The GenAI spans of the agent loop (invoke_agent, chat, execute_tool)
// are made by package agentloop/looptrace from the same helpers.
package tracing
