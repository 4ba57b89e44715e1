// Package telegram is the Telegram channel: a bot (made with @BotFather)
// that people talk to in private chats, groups and forum topics. It is
// built on github.com/go-telegram/bot and registers the channel type
// "telegram" (import it for its side effect, as a program imports a
// database/sql driver).
//
// Updates arrive by long polling (mode "polling", the default and
// nanobot's: no public address needed) or on a webhook (mode "webhook":
// Telegram posts to webhookUrl, and posts without the secret token are
// refused). Text, captions, locations and the message answered are read;
// photos, documents, voice notes, audio and video are downloaded into the
// agent's workspace (media/telegram) and handed over as file paths.
// Answers go to the chat (and topic) of the message, their Markdown
// rendered as Telegram HTML with everything else escaped (plain text when
// Telegram refuses the markup), in parts of at most 4,096 characters,
// quoting the message with replyToMessage; the files of an answer are
// sent as photos, voice notes, audio, video or documents. While a message
// is worked on, the chat shows the bot typing and the message carries
// reactEmoji.
//
// Nothing is lost and nothing is answered twice: the long poll moves its
// offset past an update (which tells Telegram the bot has it) only once
// the message is in the channel's journal, and the webhook answers 200
// only then; a restart hands over again what was taken and not answered,
// and an update Telegram gives again is found in the journal (by its
// chat and message id) and not handed over twice. Sends are retried on
// temporary errors and on 429s, after the retry_after Telegram asks for
// (see package channels).
//
// The config section is channels.telegram with nanobot's keys (token,
// allowFrom, proxy, replyToMessage, reactEmoji, groupPolicy, mode,
// webhookUrl, webhookListenHost, webhookListenPort, webhookPath,
// webhookSecretToken, webhookMaxConnections) and switchboard's own
// (baseUrl, pollTimeout, journal, mediaDir); see Config and
// docs/channels/telegram.md.
package telegram
