// Package mailbox is the channel through which separate agent processes
// find each other, exchange messages and delegate tasks (nanobot's mailbox
// design, seed 001).
//
// The channel registers the agent's card, heartbeats, receives its inbox
// (from a store.Store opened by name from the store registry: the folder
// tree "fs" by default, NATS JetStream "nats" for agents on several
// machines) and publishes each message on the bus as an InboundMessage of
// channel "mailbox" whose chat id is the sender. Replies the agent loop
// publishes to channel "mailbox" go back to that agent.
//
// On top of plain delivery it enforces the rules of the design: allowFrom on
// every message, anti-loop by trace and ttl (package route: replies are
// never refused as loops; a hop cap per thread stops reply ping-pong), the
// guard rails (package limits: rate limits and circuit breakers, guard.go;
// task trees that go round in a cycle or too deep, meta's tree.go), the
// task lifecycle (accept or reject by sender, capacity, deadline and the
// agent's own judgement; current tasks on the card; deadlines that fail a
// task), and callback routing: the updates of a task this agent delegated
// are published as the channel and session the task began in, so the agent
// answers the user in their original conversation.
//
// # Layers
//
// Its parts sit below it, each a package with one job, and none imports
// the channel: envelope (the wire format), meta (what travels in a bus
// message's metadata: Meta, Reply, Classify, which decides what a message
// asks of the agent, and the task tree), route (addressing and the loop
// rules), view
// (read-only views: directory, threads, pending replies, shared with the
// command line and the console), store (the backend contract and
// registry) with its backends, audit, tools (the mailbox tools, for the
// agent loop and the MCP server), and, internal to the channel, its books
// of what the agent owes and awaits (internal/ledger: the tasks it works
// on and those it delegated, the replies owed both ways, and the watch of
// their due times) and its budget keeper (internal/budget).
//
// # Files
//
// The channel itself is a few files of one concept each:
//
//	channel.go    the Channel: New, Factory, Start, Stop, StopReceiving,
//	              its identity, judge and tools, its state records
//	config.go     the channels.mailbox section: keys, defaults, decoding,
//	              validation, the checker
//	receive.go    the whole receive path, top to bottom: admit, classify
//	              (onTask, onUpdate, onMessage), publish, acknowledge
//	frame.go      what the agent is shown: the bus's kind and note of a
//	              message, routing into the conversation work began in
//	send.go       Send, Post, PostTo and the recent messages replies need
//	replies.go    replies owed both ways: held requests, awaited replies
//	unsent.go     answers the store did not take: kept, sent again
//	tasks.go      the life of a task this agent works on, its subtasks
//	delegated.go  the tasks it delegated: deadlines, lost workers, reoffer
//	presence.go   the card, the heartbeat, stale cards, the directory
//	approvals.go  the approval book and its tidying
//	budgets.go    the budget keeper as the loop's hook, usage reports
//	guard.go      the guard rails, the Meter, the audit log, trace spans,
//	              retention
//
// # What the channel offers the agent loop
//
// The agent loop imports nothing of the mailbox. The channel frames every
// message it publishes in the bus's words (frame.go: bus.Kind, bus.Note,
// the thread), and offers the loop, through interfaces the loop declares
// (agentloop.ToolChannel and the others), its tools (channel.go), its
// budget keeper as a hook (budgets.go), its approval book (approvals.go),
// the judgement of the tasks it accepts (SetJudge) and the agent's
// identity (Profile). Package host finds and wires them.
//
// # The life of a message
//
// A user asks researcher, on Feishu, to have coder sort numbers:
//
//  1. internal/feishustub/webhook.go takes the event and publishes it on
//     the bus (bus/bus.go); agentloop/loop.go hands it to a turn
//     (agentloop/turn.go: a person's message, bus.KindChat), and the
//     provider calls the delegate_task tool (tools/delegate.go).
//  2. Post (send.go) composes the task (route/compose.go: trace, ttl,
//     thread, and its task_path, from meta/tree.go), records it with its
//     callback (internal/ledger/delegated.go) and delivers it
//     (store/fsstore/deliver.go or store/natsstore/deliver.go).
//  3. In coder's process the inbox hands it over (store/fsstore/inbox_next.go)
//     to receive.go, which runs it through the whole receive path: admit
//     (allowFrom, route.IsLoop), then the handler of its kind — onTask
//     accepts it (the task tree, capacity, deadline, the judge; the task is
//     held in internal/ledger/active.go with a deadline on the clock) and
//     answers "accepted" — then the bus, then the acknowledgement (a task's is held
//     until it ends); the message is framed for the loop on the way
//     (bus.KindTask, its note "[mailbox task from researcher] ...").
//  4. coder's agent loop answers (turn.go: KindTask); send.go's Send sees,
//     through meta.Answers, that the answer ends the task, and FinishTask
//     (tasks.go) posts the task_update "completed", acknowledges the request
//     and sweeps the task's messages into its archive.
//  5. Back in researcher's process, receive.go hands the update to
//     onUpdate, which finds the task it delegated (its record in
//     internal/ledger) and routes the update to the Feishu chat the task
//     began in (frame.go's routed: Meta.Callback set); the loop (KindChat)
//     answers the user there, and the channel manager
//     (channels/dispatch.go) sends it through the Feishu stub.
//
// Mailbox details travel in InboundMessage.Metadata under one key; read
// them with meta.Of and attach reply options with meta.WithReply rather
// than building keys by hand. The loop reads none of it: a failed turn's
// answer says so in OutboundMessage.Failure, which fails the task.
package mailbox
