package natsstore

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/nats-io/nats.go"
)

var _ driver.Pinger = (*Store)(nil)

// Ping implements driver.Pinger: the store is open, its connection is up
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
