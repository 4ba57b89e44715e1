// Package httpapi is the HTTP channel (type "http"): a small API through
// which programs talk to a running agent, and an OpenAI-compatible
// endpoint for chat front-ends.
//
//	GET  /health                              no token needed
//	POST /api/sessions/{session}/messages     a message into the session: 202 once journaled
//	GET  /api/sessions/{session}/answers      the session's answers (?after=SEQ&wait=SECONDS: long poll)
//	GET  /api/sessions/{session}/events       the same as Server-Sent Events
//	GET  /v1/models                           the agent, as OpenAI's model list
//	POST /v1/chat/completions                 the last user message to the agent; its answer as the completion
//
// Every route but /health wants "Authorization: Bearer <apiKey>" when
// channels.http.apiKey is set, and the channel refuses to listen on an
// address other than a loopback one without it. A message is journaled
// (channels.Journal) before the request is answered, and its id is the
// client's Idempotency-Key when given: a client that posts again after a
// timeout or a restart gets its message answered once. The answers are
// kept in a file (conversation.Book), so that one sent just before a crash
// is still there to read. docs/channels/http.md is the user's guide.
package httpapi
