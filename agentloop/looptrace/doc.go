// Package looptrace is the agent loop's tracing: an agentloop.Hook that
// makes the spans of OpenTelemetry's GenAI semantic conventions, one
// "invoke_agent <agent>" span per turn (a child of the span that took the
// message in, found in bus.InboundMessage.TraceContext), one
// "chat <model>" span per provider call with the model and the token
// usage the provider reported, and one "execute_tool <tool>" span per
// tool call. The tool's context carries its span, so a message a tool
// sends through the mailbox joins the trace.
package looptrace
