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
// # Messages from other agents
//
// The loop knows no channel. A channel that carries messages between
// agents (the mailbox, package channels/mailbox) says in the bus's own
// words what each message asks of the agent (bus.InboundMessage.Kind) and
// how the model is shown it (InboundMessage.Note), a one-line header
// followed by the text:
//
//	[mailbox task from researcher] sort 5 3 9 1
//	[mailbox message from researcher] are you there?
//	[mailbox task_update from coder: task task_0198 completed] 1 3 5 9
//	[mailbox task_update from coder: task task_0198 rejected] reason: declined: no capability for sort
//
// Replies follow the kind:
//   - a task (bus.KindTask) is answered by the final reply, which the
//     channel turns into the task's result; if the turn fails, the answer
//     says so (OutboundMessage.Failure: FailureReason, or a TaskFailure's
//     own reason), and the channel fails the task, so it never hangs;
//   - a record (bus.KindRecord: an update of a task, a reply to one of
//     this agent's messages) is recorded in the history but not answered,
//     so two agents never thank each other forever;
//   - news routed back to the user's conversation (the result of a task
//     this agent delegated) is a chat message (bus.KindChat) and is
//     answered normally: the answer goes to the user.
//
// The answer carries a copy of the inbound metadata, which the loop never
// reads: the channel finds there what its answer answers.
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
// other agents through the tools it is offered that introduce themselves
// (agent.Introduced).
//
// Tools implement agent.Tool and are collected in a Tools registry.
// Loop.Judge decides which delegated tasks this agent accepts, as
// Config.Judge says: by asking the model (a provider that implements
// TaskJudge keeps its own rule), by the agent's capabilities, or always.
//
// # What channels offer the loop
//
// A channel may offer the loop more than messages, through small
// interfaces this package declares with types of bus and agent only
// (channel.go): tools (ToolChannel: the mailbox's list_agents,
// delegate_task, send_message and reply), hooks that run first
// (HookChannel: the mailbox's budget keeper), the book that keeps the
// agent's approvals (ApprovalChannel), the tasks it delegates, which it
// asks Loop.Judge about (TaskChannel), and the agent's identity
// (IdentityChannel). Package host finds them on the channels it runs and
// wires them; the channel never imports the loop.
//
// Config.Hooks observe every turn, provider call and tool call (see Hook):
// metrics, traces, budgets and the record of token usage are built on
// them. A provider reports what a call cost in Response.Usage; a hook may
// refuse a provider call, and the turn then fails with its reason.
package agentloop
