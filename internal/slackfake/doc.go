// Package slackfake is a fake Slack for tests: slack-go's own test server
// (github.com/slack-go/slack/slacktest) extended with what a Socket Mode
// bot needs, so that github.com/slack-go/slack and its socketmode client
// talk to it when their API URL points there (slack.OptionAPIURL), with no
// network and no tokens.
//
// slacktest serves the Web API and answers apps.connections.open, but its
// WebSocket speaks the old RTM protocol: it sends no hello, no envelopes,
// and reads the client's acknowledgements as RTM messages it cannot
// place. This package replaces the calls a bot makes (auth.test,
// apps.connections.open, chat.postMessage, reactions.add and
// reactions.remove, the download of a file's url_private) with handlers
// that check the tokens and record what the bot did, and adds the Socket
// Mode WebSocket: a hello when a client connects, each event pushed as an
// events_api envelope with its envelope_id, the client's acknowledgement
// of that envelope handed back to the push, WebSocket pings, and a
// disconnect request on demand. The calls the fake does not replace are
// slacktest's.
//
// A test pushes events with PushEvent (which returns once the bot
// acknowledged the envelope) and waits for the bot's messages with
// WaitMessages. Failures are injected per call with FailNext: a rate limit
// with its Retry-After, a server error, an error code.
package slackfake
