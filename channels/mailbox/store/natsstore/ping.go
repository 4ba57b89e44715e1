package natsstore

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: the store is open, its connection is up
// and the server answers for the store's stream.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if st := s.nc.Status(); st != nats.CONNECTED {
		return fmt.Errorf("natsstore: not connected to the server (%s)", st)
	}
	if _, err := s.stream.Info(ctx); err != nil {
		return fmt.Errorf("natsstore: stream %s: %w", s.opts.Stream, err)
	}
	return nil
}
