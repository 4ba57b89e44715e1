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
)

// String names the kind: "chat", "task", "message" or "record".
func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindMessage:
		return "message"
	case KindRecord:
		return "record"
	}
	return "chat"
}
