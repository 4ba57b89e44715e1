// Package mailboxtools gives the agent loop's model the mailbox: tools to
// list the agents online (list_agents), delegate a task to an agent or to
// whoever offers a capability (delegate_task), send a plain message to an
// agent or to a group (send_message: all, cap:NAME, role:NAME, any:NAME or
// a pattern, through the channel's PostTo) and answer the agent whose
// message is being handled (reply).
//
// The tools work over Mailbox, the part of *mailbox.Channel they need.
// delegate_task attaches the current turn's conversation as the task's
// callback, so the task's updates come back to the conversation (and the
// user) it was delegated from. Errors (an unknown agent, a refused loop,
// no agent with a capability) are returned as errors, which the loop shows
// to the model as "error: ..." results.
package mailboxtools
