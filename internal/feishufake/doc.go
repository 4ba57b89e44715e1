// Package feishufake is a fake Feishu (Lark) open platform for tests: one
// local HTTP server that the official SDK (github.com/larksuite/oapi-sdk-go/v3)
// talks to when its base URL points there, with no network and no keys.
//
// It serves the REST calls a chat bot makes (tenant_access_token, bot
// info, messages created and replied to, message resources, reactions) and
// records what the bot sent; and the long connection: the endpoint
// discovery call (/callback/ws/endpoint) returns the address of a
// WebSocket on which it speaks the SDK's protobuf frames (package ws of the
// SDK: ping and pong control frames, event data frames, the bot's
// response frames). A test pushes events with PushEvent and waits for the
// bot's answers with WaitMessages. Deliver plays Feishu's side of the
// webhook mode instead: it posts an event, encrypted and signed as Feishu
// does when an encrypt key is set.
//
// Failures are injected per call with FailNext (a rate limit with its
// reset header, a server error), to see retries.
package feishufake
