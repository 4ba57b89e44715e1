// Package feishu is the Feishu (Lark) channel: a bot of a Feishu or Lark
// app that people talk to in private chats and groups. It is built on the
// official SDK, github.com/larksuite/oapi-sdk-go/v3, and registers the
// channel type "feishu" (import it for its side effect, as a program
// imports a database/sql driver).
//
// Events arrive over Feishu's long connection (mode "websocket", the
// default and nanobot's: no public address needed) or on a webhook (mode
// "webhook": the verification token is checked, and with an encrypt key
// the events are decrypted and their signatures checked). Text, post (rich
// text), image, file, audio and video messages are taken in; attachments
// are downloaded into the agent's workspace (media/feishu) and handed over
// as file paths. Answers go out with the reply API, in the thread of the
// message answered, as text or, when they hold Markdown, as a card; long
// answers are sent in parts. While a message is being worked on the bot
// reacts to it with reactEmoji, as nanobot does.
//
// What every chat channel shares comes from package channels: each message
// is journaled before Feishu hears it was taken (nothing is lost to a
// crash, and a restart hands over again what was not answered), an event
// Feishu delivers again is answered once (before or after a restart), and
// sends are retried on temporary errors and rate limits (with the wait
// Feishu asks for). Each part of an answer carries a uuid derived from it,
// so that Feishu itself drops a part sent twice.
//
// The config section is channels.feishu with nanobot's keys (appId,
// appSecret, encryptKey, verificationToken, allowFrom, reactEmoji,
// doneEmoji, groupPolicy, replyToMessage, topicIsolation, domain) and
// switchboard's own (mode, listen, webhookPath, baseUrl, journal,
// mediaDir); see Config and docs/channels/feishu.md.
package feishu
