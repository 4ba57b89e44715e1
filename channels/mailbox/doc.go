// Package mailbox is the channel through which separate agent processes
// find each other, exchange messages and delegate tasks (nanobot's mailbox
// design, seed 001).
//
// The channel registers the agent's card, heartbeats, receives its inbox
// (from a store.Backend: a shared folder by default, NATS JetStream for
// agents on several machines) and publishes each message on the bus as an
// InboundMessage of channel "mailbox" whose chat id is the sender. Replies
// the agent loop publishes to channel "mailbox" go back to that agent.
//
// On top of plain delivery it enforces the rules of the design: allowFrom on
// every message, anti-loop by trace and ttl (replies are never refused as
// loops; a hop cap per thread stops reply ping-pong), the task lifecycle
// (accept or reject by sender, capacity, deadline and the agent's own
// judgement; current tasks on the card; deadlines that fail a task), and
// callback routing: the updates of a task this agent delegated are
// published as the channel and session the task began in, so the agent
// answers the user in their original conversation.
//
// Mailbox details travel in InboundMessage.Metadata under one key; read
// them with MetaOf and attach reply options with WithReply rather than
// building keys by hand.
package mailbox
