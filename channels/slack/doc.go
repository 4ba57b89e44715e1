// Package slack is the Slack channel: a Slack app's bot that people talk
// to in direct messages and in the channels it is in. It is built on
// github.com/slack-go/slack and its Socket Mode client (no public address
// needed; nanobot's mode), and registers the channel type "slack" (import
// it for its side effect, as a program imports a database/sql driver).
//
// Direct messages are taken as dm.policy says ("open", or "allowlist" of
// dm.allowFrom); messages in channels as groupPolicy says ("mention": those
// that @-mention the bot, "open": all, "allowlist": those of the channels
// in groupAllowFrom), and every sender must pass allowFrom. Files shared
// in a message are downloaded with the bot token into the agent's
// workspace (media/slack) and handed over as file paths. Answers go out
// with chat.postMessage in the thread of the message answered (a message
// in a channel starts a thread under it with replyInThread, the default),
// as mrkdwn with &, < and > escaped and Markdown's bold, strike-through,
// headings and links turned into Slack's; long answers are sent in parts.
// While a message is being worked on the bot reacts to it with
// reactEmoji, and with doneEmoji once it is answered, as nanobot does.
//
// What every chat channel shares comes from package channels: each event
// is journaled before its envelope is acknowledged (nothing is lost to a
// crash, and a restart hands over again what was not answered), an event
// Slack delivers again is answered once (before or after a restart: the
// journal keeps the ids, the channel and timestamp of the message, that
// it answered), and sends are retried on temporary errors and rate limits
// (with the wait Slack asks for in Retry-After). A part of a long answer
// that was posted is not posted again when the answer is retried.
//
// The config section is channels.slack with nanobot's keys (enabled, mode,
// botToken, appToken, replyInThread, reactEmoji, doneEmoji, allowFrom,
// groupPolicy, groupAllowFrom, groupRequireMention, dm.enabled, dm.policy,
// dm.allowFrom) and switchboard's own (apiUrl, journal, mediaDir); see
// Config and docs/channels/slack.md.
package slack
