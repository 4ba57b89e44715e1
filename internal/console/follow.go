package console

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// watchMessages follows every inbox through the store's watch and tells
// the pages of each message. A store without the ability is not followed
// (the pages then refresh on registry changes and actions only).
func (c *Console) watchMessages(ctx context.Context) {
	if !c.cfg.Store.Has(store.CanWatch) {
		c.cfg.Logger.Warn("this store cannot be watched: the console refreshes on registry changes only")
		return
	}
	var ready sync.Once
	for ctx.Err() == nil {
		err := c.cfg.Store.Watch(ctx, "", store.WatchFuncs{
			Ready:   func() { ready.Do(func() { close(c.watching) }) },
			Arrived: func(store.Watched) error { c.hub.publish("messages"); return nil },
			Notice:  func(line string) { c.cfg.Logger.Warn("watch", "notice", line) },
		})
		if err == nil || ctx.Err() != nil {
			return
		}
		c.cfg.Logger.Warn("watch ended; watching again", "err", err)
		if !sleepCtx(ctx, c.cfg.RegistryEvery) {
			return
		}
	}
}

// watchRegistry re-reads the agents' cards (and presence, where the store
// tracks it) every RegistryEvery and tells the pages when they changed:
// an agent started, stopped, took or finished a task, or its heartbeat
// made it offline.
func (c *Console) watchRegistry(ctx context.Context) {
	var last []cardKey
	t := time.NewTicker(c.cfg.RegistryEvery)
	defer t.Stop()
	for {
		if now, err := c.registryKey(ctx); err == nil && !slices.Equal(now, last) {
			c.hub.publish("agents") // the first time too: a page may have read before
			last = now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// cardKey is what of a card the pages show, but the heartbeat time.
type cardKey struct {
	id, status, tasks string
	online            bool
}

func (c *Console) registryKey(ctx context.Context) ([]cardKey, error) {
	cards, err := c.cfg.Store.Cards(ctx)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	online := c.presence(ctx, now)
	keys := make([]cardKey, 0, len(cards))
	for _, card := range cards {
		st := card.EffectiveStatus(now, c.cfg.OfflineAfter)
		on := st != envelope.StatusOffline
		if p, ok := online[card.AgentID]; ok {
			st, on = p.Status, p.Online
		}
		keys = append(keys, cardKey{id: card.AgentID, status: string(st), online: on,
			tasks: card.Description + "|" + joinStrings(card.CurrentTasks) + "|" + joinStrings(card.Capabilities) + "|" + joinStrings(card.Roles)})
	}
	return keys, nil
}

// presence returns who is online at now and the status to show, by agent
// (store.Store.Presence: as the store tracks presence, else as the cards'
// heartbeats say); nil when it cannot be read, and the cards say then.
func (c *Console) presence(ctx context.Context, now time.Time) map[string]store.Presence {
	online, err := c.cfg.Store.Presence(ctx, now, c.cfg.OfflineAfter)
	if err != nil {
		return nil
	}
	return online
}

func joinStrings(ss []string) string {
	out := ""
	for _, s := range ss {
		out += s + ","
	}
	return out
}

// sleepCtx waits d or until ctx ends; it reports whether ctx is still on.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
