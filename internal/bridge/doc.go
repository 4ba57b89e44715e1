// Package bridge mirrors agent cards and messages between two mailbox
// stores (a folder root, which nanobot's agents share, and a NATS server),
// both ways, so that the agents of both form one team: what `switchboard
// bridge` runs.
//
// Which agent lives where is told by its card: a card without bridged_by
// is the agent's own; the bridge writes a copy of it into the other store,
// marked bridged_by and bridge_hops (how many bridges from the agent's own
// card), and copies a card only where no card nearer the agent is, so
// copies travel onward along a chain of bridges and never back. For each
// agent it copied into a store, it owns that agent's inbox there
// (OpenInbox, one owner at a time, so two bridges between the same stores
// share the work instead of doubling it) and forwards every message that
// arrives in it to the store the copy came from, one step nearer the
// agent.
//
// Forwarding is at least once, deduplicated by message id: a message is
// acknowledged in its source only once the destination holds it, and a
// message its inbox may have handed out before (a bridge killed between
// the two, store.Delivery.Redelivered) is looked for in the destination
// first, which is the bridge's ledger: what the destination holds was
// forwarded, whatever the bridge remembers. A message is forwarded as it
// was read, its signature still valid: the bridge adds its name to the
// message's bridges (no part of what the sender signed), and never
// forwards a message that names it already.
//
// The mirrored card's heartbeat is the source's: a copy goes offline when
// its agent does, and stops being renewed when the bridge stops, so a dead
// bridge does not keep agents online. File parts that name an artifact
// (artifact://sha256/...) have their bytes copied into the destination's
// artifact store, verified by their hash, before the message is
// delivered. What cannot be forwarded (a loop, an artifact missing or
// corrupt, a message the destination refuses) is set aside in the source
// with the reason; a transient failure (a server down) is retried.
package bridge
