// Package conversation keeps the conversations that a program or a person
// holds with the agent through a channel that has no chat platform behind
// it (the terminal of `switchboard agent`, the HTTP API): the answers the
// agent sent to each chat, numbered in order, and whether a chat has
// settled.
//
// A channel records every outbound message it is given (Book.Record) and
// reads them back in order (Book.Since, Book.Changed). A message the
// channel takes in is tagged with its id (Tag), so that the answer to it
// names it (Answer.ReplyTo).
//
// The agent may delegate work from a chat (the mailbox's delegate_task):
// the first answer says so ("I asked coder..."), and the task's updates
// come back to the same chat later, each answered by the agent. The
// Book's Hook, an agent.Hook the channel offers the loop, follows the
// turns of the channel's chats to know what is still to come: the tasks
// delegated from a chat that have not reached a final state, the turns in
// progress and the answers they will send. Book.Follow waits for the
// answer to one message and, if asked, until its chat has settled: every
// task delegated from it ended and its last update answered.
package conversation
