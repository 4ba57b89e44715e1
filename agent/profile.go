package agent

// Profile is who an agent is, as the channel that gives it an identity
// presents it to others (the mailbox: the agent's card). The agent loop
// tells the model in its system prompt.
type Profile struct {
	// ID is the agent's id.
	ID string
	// Description says what the agent does.
	Description string
	// Capabilities are what the agent can be given tasks for.
	Capabilities []string
	// Roles are the agent's broader labels.
	Roles []string
}
