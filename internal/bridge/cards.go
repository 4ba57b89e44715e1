package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// This file is the mirroring of cards: each round reads both stores'
// cards and writes into each store a copy of every card of the other that
// is nearer its agent (fewer bridges away: an agent's own card is 0) than
// what the store holds, or the same distance and out of date; an agent's
// own card is never replaced. For each agent so copied it starts a
// forwarder: messages to the agent in the store its card was copied into
// go to the store the copy came from, nearer the agent. Copies never flow
// back toward their agent, so a chain of bridges (a folder, a server,
// another folder) reaches every agent, and two bridges between the same
// stores agree on every copy.

// heartbeatSlack is how far a copy's heartbeat may be from its source's
// and still count as the same: a store may keep heartbeats more coarsely.
const heartbeatSlack = time.Second

// cardsOf is what one round read of a store.
type cardsOf struct {
	all      map[string]envelope.Card
	presence map[string]store.Presence
}

// hops is how many bridges away from its agent c is: 0 for the agent's
// own card, at least 1 for a copy.
func hops(c envelope.Card) int {
	if c.BridgedBy == "" {
		return 0
	}
	return max(c.BridgeHops, 1)
}

// readCards reads side i's cards and presence.
func (b *Bridge) readCards(ctx context.Context, i int, now time.Time) (cardsOf, error) {
	st := b.side(i).Store
	cards, err := st.Cards(ctx)
	if err != nil {
		return cardsOf{}, err
	}
	pres, err := st.Presence(ctx, now, b.cfg.OfflineAfter)
	if err != nil {
		return cardsOf{}, err
	}
	v := cardsOf{all: map[string]envelope.Card{}, presence: pres}
	for _, c := range cards {
		v.all[c.AgentID] = c
	}
	return v, nil
}

// syncCards does one round (see the top of the file). A store that cannot
// be read skips the round: the forwarders keep running.
func (b *Bridge) syncCards(ctx context.Context) {
	forwarders := ctx
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	now := b.cfg.Now()
	var views [2]cardsOf
	for i := range 2 {
		v, err := b.readCards(ctx, i, now)
		if err != nil {
			if forwarders.Err() == nil {
				b.log.Warn("cards not read; trying again", "store", b.side(i).Name, "err", err)
			}
			return
		}
		views[i] = v
	}
	wanted := map[route]bool{}
	for src := range 2 {
		dst := 1 - src
		for id, c := range views[src].all {
			far := hops(c) + 1 // the copy's distance
			cur, ok := views[dst].all[id]
			switch {
			case ok && hops(cur) == 0:
				if hops(c) == 0 {
					b.clash(id)
				}
				continue // the agent's own card is there
			case ok && hops(cur) < far, far > MaxBridges:
				continue // dst is as near the agent, or nearer
			}
			want := b.mirror(c, views[src].presence[id], far)
			if !ok || !sameMirror(cur, want) {
				b.writeMirror(ctx, dst, want)
			}
			wanted[route{agent: id, from: dst, to: src}] = true
		}
		b.orphans(ctx, dst, views[dst], views[src])
	}
	b.reconcile(forwarders, wanted)
}

// clash warns, once, of an agent that has a card of its own in both
// stores: neither is copied, and messages to it stay where they were sent.
func (b *Bridge) clash(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.conflicts[id] {
		b.conflicts[id] = true
		b.log.Warn("an agent of this id runs on both sides: its card is not copied, and messages to it stay on the side they were sent on",
			"agent", id, "sides", b.cfg.A.Name+", "+b.cfg.B.Name)
	}
}

// mirror returns the copy of card c that the other store gets: marked as
// this bridge's, far bridges from its agent, its status and heartbeat
// those its store tracks (p), its process id dropped (it names a process
// of another machine).
func (b *Bridge) mirror(c envelope.Card, p store.Presence, far int) envelope.Card {
	m := c
	m.BridgedBy, m.BridgeHops, m.PID = b.cfg.ID, far, 0
	if !p.Heartbeat.IsZero() {
		m.LastHeartbeat = envelope.NewTime(p.Heartbeat)
	}
	if p.Agent != "" && !p.Online {
		m.Status = envelope.StatusOffline
	} else if p.Agent != "" {
		m.Status = p.Status
	}
	return m
}

// sameMirror reports whether cur, a store's card, is a copy (by any
// bridge) that says what want says, heartbeats within heartbeatSlack.
func sameMirror(cur, want envelope.Card) bool {
	if cur.BridgedBy == "" {
		return false
	}
	d := cur.LastHeartbeat.Sub(want.LastHeartbeat.Time)
	if d < -heartbeatSlack || d > heartbeatSlack {
		return false
	}
	return cardJSON(cur) == cardJSON(want)
}

// cardJSON is c's JSON without what differs between copies of one card.
func cardJSON(c envelope.Card) string {
	c.BridgedBy, c.PID, c.LastHeartbeat = "", 0, envelope.Time{}
	for _, l := range []*[]string{&c.Capabilities, &c.AllowFrom, &c.CurrentTasks, &c.Roles} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	raw, _ := json.Marshal(c)
	return string(raw)
}

// writeMirror writes want into side dst, unless a card nearer the agent
// (its own) is there meanwhile.
func (b *Bridge) writeMirror(ctx context.Context, dst int, want envelope.Card) {
	nearer := false
	_, err := b.side(dst).Store.UpdateCard(ctx, want.AgentID, func(cur *envelope.Card) {
		nearer = !cur.RegisteredAt.IsZero() && hops(*cur) < want.BridgeHops
		if !nearer {
			*cur = want
		}
	})
	switch {
	case err != nil && ctx.Err() == nil:
		b.log.Warn("card not copied; trying again", "agent", want.AgentID, "to", b.side(dst).Name, "err", err)
	case err == nil && !nearer:
		b.log.Debug("card copied", "agent", want.AgentID, "to", b.side(dst).Name, "status", want.Status)
	}
}

// orphans marks offline the copies this bridge wrote into dst whose card
// in src, which they copy, is gone.
func (b *Bridge) orphans(ctx context.Context, dst int, in, src cardsOf) {
	for id, c := range in.all {
		if c.BridgedBy != b.cfg.ID || c.Status == envelope.StatusOffline {
			continue
		}
		if s, ok := src.all[id]; ok && hops(s) < hops(c) {
			continue
		}
		_, err := b.side(dst).Store.UpdateCard(ctx, id, func(cur *envelope.Card) {
			if cur.BridgedBy == b.cfg.ID {
				cur.Status = envelope.StatusOffline
			}
		})
		if err != nil && ctx.Err() == nil {
			b.log.Warn("copy of a card whose agent is gone not marked offline", "agent", id, "in", b.side(dst).Name, "err", err)
		}
	}
}

// reconcile starts a forwarder for each wanted route that has none and
// stops those no longer wanted.
func (b *Bridge) reconcile(ctx context.Context, wanted map[route]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for r, f := range b.forwarders {
		if !wanted[r] {
			f.cancel()
			delete(b.forwarders, r)
		}
	}
	for r := range wanted {
		if _, ok := b.forwarders[r]; ok {
			continue
		}
		fctx, cancel := context.WithCancel(ctx)
		f := &forwarder{b: b, r: r, cancel: cancel}
		b.forwarders[r] = f
		b.wg.Go(func() { f.run(fctx) })
	}
}
