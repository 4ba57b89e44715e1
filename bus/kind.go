package bus

// Kind is what an inbound message asks of the agent, and so what the
// agent's answer to it becomes. The channel that publishes a message
// sets it; the agent loop reads it and never a channel's metadata.
type Kind int

// The kinds of inbound message.
const (
	// KindChat is a person's message (the zero value): answer it in the
	// chat it came from. A channel also uses it for news routed back to
	// the conversation where a piece of work began (the mailbox: an update
	// of a task this agent delegated, in the user's chat), which the agent
	// tells the person about.
	KindChat Kind = iota
	// KindTask is a task delegated to this agent: the answer ends it (the
	// channel reports it done, or failed when OutboundMessage.Failure is
	// set); an empty answer still ends it.
	KindTask
	// KindMessage is a message from another agent: the answer goes back to
	// it (an empty answer is none).
	KindMessage
	// KindRecord is recorded in the conversation and not answered: an
	// update of a task, a reply to a message, so that two agents cannot
	// thank each other for ever.
	KindRecord
	// KindNotice is news of work under way to tell the person as it is,
	// in the chat a KindChat would be answered in: a task this agent
	// delegated was accepted, is being worked on, or waits (the mailbox
	// sets it on such updates, any channel that carries tasks may). The
	// agent loop words it from Note (the task's state, the agent, the
	// text) with its templates, or takes Content when there is no Note,
	// records it in the conversation and sends it, without a model turn;
	// a loop configured to put notices through the model takes it as a
	// KindChat. A task's result is no notice: it is a KindChat, which the
	// model answers with the conversation.
	KindNotice
)

// String names the kind: "chat", "task", "message", "record" or "notice".
func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindMessage:
		return "message"
	case KindRecord:
		return "record"
	case KindNotice:
		return "notice"
	}
	return "chat"
}
