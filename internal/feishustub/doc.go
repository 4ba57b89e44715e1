// Package feishustub is a stand-in for a Feishu (Lark) channel, for demos
// and tests: it takes Feishu-style message events on an HTTP webhook and,
// instead of calling Feishu's API, "sends" replies by appending them to a
// JSON-lines file and the log. A person reads that file (or asks the
// webhook server for a chat's replies) to see what the user would see.
//
// It registers the channel type "feishu-stub" (the real channel,
// channels/feishu, is "feishu"), so a host configured with
// channels.feishu-stub runs it beside the mailbox, under the channel name
// "feishu", and task results routed back by the mailbox land in the
// user's chat.
// It is no API: the program, the demo and the tests use it; an embedder
// writes its own channel against package channels.
//
// The webhook accepts the im.message.receive_v1 event (schema 2.0,
// simplified: only text messages) and the url_verification handshake.
// GET /feishu/replies?chat_id=X&after=N&wait=S returns the replies to chat X
// after the first N, waiting up to S seconds for one to arrive.
//
// README.md in this folder tells the whole story with two agent processes:
// a Feishu user asks researcher, researcher delegates to coder through the
// mailbox, and the answer lands in the user's chat.
package feishustub
