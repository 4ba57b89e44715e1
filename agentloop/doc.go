// Package agentloop turns inbound bus messages into replies: the agent
// loop of nanobot, for switchboard.
//
// A Loop consumes bus.InboundMessage values and keeps one conversation per
// session key (InboundMessage.SessionKey). The messages of one session are
// handled strictly in order; different sessions run concurrently, at most
// Config.MaxConcurrentSessions at once. Each turn loads the session's
// history, appends the new message, asks the Provider (an LLM, or the
// deterministic scripted provider) for an answer, runs the tool calls it
// asks for, and publishes the final answer as a bus.OutboundMessage to the
// channel and chat the message came from, with a copy of its metadata.
//
// History is kept in memory and appended to
// <workspace>/sessions/<escaped session key>.jsonl, one JSON message per
// line, so a restarted loop continues each conversation.
//
// # Mailbox traffic
//
// Messages from other agents arrive through the mailbox channel (package
// channels/mailbox) with their details in the metadata (mailbox.MetaOf).
// The loop shows them to the provider as a MailboxNote, a one-line header
// followed by the text:
//
//	[mailbox task from researcher] sort 5 3 9 1
//	[mailbox message from researcher] are you there?
//	[mailbox task_update from coder: task task_0198 completed] 1 3 5 9
//	[mailbox task_update from coder: task task_0198 rejected] reason: declined: no capability for sort
//
// Replies follow these rules:
//   - a task is answered by the final reply, which the mailbox channel turns
//     into the task's completed task_update; if the provider fails, the
//     task is failed with the reason FailureReason (or a TaskFailure's own
//     reason), so it never hangs;
//   - a task_update (or a reply to one of this agent's messages) that
//     arrives on the "mailbox" channel is recorded in the history but not
//     answered, so two agents never thank each other forever;
//   - a task_update routed back to the user's conversation (the callback
//     of a task this agent delegated, mailbox.Meta.Routed) is answered
//     normally: the answer goes to the user.
//
// A provider error on any other message is answered with FailureReply,
// one short sentence, so the user always hears back; the error itself goes
// to the log, and the failed turn is not written into the history.
//
// # The system prompt
//
// Unless Config.SystemPrompt (or SystemPromptFile) gives the whole prompt,
// it is built for every turn as nanobot builds it: DefaultSystemPrompt,
// the workspace's BootstrapFiles that exist (AGENTS.md, SOUL.md, USER.md,
// TOOLS.md, IDENTITY.md), and, with an AgentID, a section on the agent's
// identity (id, description, capabilities, roles) and on working with the
// other agents through the mailbox tools it is offered.
//
// Tools implement the Tool interface and are collected in a Tools
// registry; package agentloop/mailboxtools provides the tools through
// which the LLM lists agents, delegates tasks, sends messages and replies.
// Loop.Judge decides which delegated tasks this agent accepts, as
// Config.Judge says: by asking the model (a provider that implements
// TaskJudge keeps its own rule), by the agent's capabilities, or always.
//
// Config.Hooks observe every turn, provider call and tool call (see Hook):
// metrics, traces, budgets and the record of token usage are built on
// them. A provider reports what a call cost in Response.Usage; a hook may
// refuse a provider call, and the turn then fails with its reason.
package agentloop
