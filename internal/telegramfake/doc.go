// Package telegramfake is a fake Telegram Bot API server for tests: one
// local HTTP server that a Telegram library talks to when its server URL
// points there (go-telegram/bot's WithServerURL, a channel's baseUrl),
// with no network and no token of a real bot.
//
// It serves the methods a chat bot calls, under /bot<token>/<method> as
// Telegram does, with parameters as a query, a form, a multipart form or a
// JSON body:
//
//   - getMe, and a 401 for any other token;
//   - getUpdates with Telegram's offset semantics: an update is returned
//     until the bot asks with an offset above its id, which confirms it
//     (and every update before it) for good; a long poll waits for an
//     update up to the timeout it asks for; while a webhook is set it
//     answers 409, as Telegram does;
//   - sendMessage, which checks what Telegram checks: the text is not
//     empty, and not longer than 4,096 characters (UTF-16 code units, as
//     Telegram counts) once its entities are parsed; with parse_mode
//     "HTML" the markup is parsed by Telegram's rules (ParseHTML: the
//     supported tags, properly nested; <, > and & escaped), and a
//     message Telegram would refuse gets its "can't parse entities"
//     error; the entities are recorded with the message;
//   - sendPhoto, sendDocument, sendVoice, sendAudio, sendVideo (the file
//     uploaded in a multipart form), recorded as messages with the file;
//   - sendChatAction, setMessageReaction;
//   - getFile, and the download of a file at /file/bot<token>/<path>;
//   - setWebhook, deleteWebhook, getWebhookInfo.
//
// A test plays the users: Push sends the bot a message (an update with
// the next id), Redeliver forgets that updates were confirmed (the bot
// stopped before its next getUpdates told Telegram), and Deliver posts an
// update to a webhook as Telegram does, with the secret token. The bot's
// side is recorded: Messages, ChatActions, Reactions, with Wait functions
// that wake when something is recorded (no sleeps). FailNext makes the
// next calls of a method fail (a 429 with retry_after, a 5xx, a 400).
//
// The fake knows the parse mode HTML and plain text; MarkdownV2 is
// refused with a 400 naming the fake's limit.
package telegramfake
