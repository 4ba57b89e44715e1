// Package remote makes an A2A agent a mailbox participant: a mailbox
// agent of its own (the name in channels.a2a.connect) whose card shows
// the A2A agent's description and skills, and whose tasks are sent to the
// A2A agent. The remote task's states come back as the mailbox task's
// updates, streamed when the agent streams, else polled; an A2A agent
// that wants input asks the delegator a question in the mailbox, and the
// answer goes back to it.
//
// The A2A card is fetched at start and every refresh, and kept in the
// participant's state record, so that a participant whose agent is down
// when it starts still shows its last card. Each task it sent is recorded
// with the remote task's id before its first event is acted on: a
// participant killed mid-task follows the remote task again when the
// mailbox hands the task back, without sending it twice.
package remote
