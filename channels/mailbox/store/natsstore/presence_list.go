package natsstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Online returns the agents online now, one Presence each (Online true),
// sorted by agent id: the live keys of the presence bucket, which expire
// PresenceTTL after an agent's last heartbeat and are deleted by a clean
// stop. Entries that are not understood are left out with a warning.
func (s *Store) Online(ctx context.Context) ([]driver.Presence, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, fmt.Errorf("online agents: %w", err)
	}
	w, err := s.presence.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("online agents: %w", err)
	}
	defer w.Stop()
	var out []driver.Presence
	for {
		select {
		case e := <-w.Updates():
			if e == nil { // the end of the initial values
				slices.SortFunc(out, func(a, b driver.Presence) int { return strings.Compare(a.Agent, b.Agent) })
				return out, nil
			}
			p, ok := presenceOf(e)
			if !ok {
				s.opts.Logger.Warn("presence entry not understood; skipped", "key", e.Key())
				continue
			}
			if p.Online {
				out = append(out, p)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("online agents: %w", ctx.Err())
		}
	}
}
