// Package stalemate finds two agents stuck in an exchange (seed 000's
// stalemate rule, issue 30) from what the messages carry, so that any
// process on any backend sees it the same way.
//
// A reply answers the message before it, from the agent that received
// it to the one that sent it: a chain of replies is always between the
// same two agents (a forward to a third agent starts a new chain). Each
// reply of a chain carries two counts (envelope.Exchange, metadata key
// "exchange"), kept by Next as the reply is composed:
//
//   - bounces: the replies in a row that settled no reply owed. A reply
//     that answers a request without asking anew settles one (the
//     exchange made progress) and starts the count again; anything else
//     (a question answered with a question, small talk answered with
//     small talk, a worker's note on its task) adds one.
//   - asked back: the replies in a row that were themselves requests, so
//     that a reply stayed owed all along.
//
// The receiver counts a reply on from its own message that the reply
// answers (Next), so that a sender can neither claim a stalemate nor
// hide one (nanobot writes no counts).
//
// Check reads them on the receiving side: a chain whose replies owed did
// not shrink across two rounds (AskedBack reaches 2*Rounds: each agent
// answered the other's request with a new one twice), or that bounced
// between its two agents channels.mailbox.limits.bounces times (default
// DefaultBounces, well below the hop cap), is a stalemate. A question
// answered and a new question asked, round after round, is progress and
// never one; nor is an exchange among three or more agents, whose chains
// are between two each.
package stalemate
