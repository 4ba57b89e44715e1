// Package terminal is the channel of `switchboard agent`: a person at a
// terminal talking to the agent. The command adds it to the host it runs
// (the section channels.terminal, type "terminal"), reads the person's
// lines and prints what the agent sends to the chat; the channel puts the
// lines on the bus as messages of chat "terminal:<session>" and keeps the
// answers in a conversation.Book. Because it is a channel like any other,
// a task the agent delegates from the terminal carries it as its callback,
// and the task's updates come back to the same terminal session.
//
// Messages are not journaled: a person who typed a line sees whether it
// was answered, and a line typed into a process that died is not handed
// to the next one.
package terminal
