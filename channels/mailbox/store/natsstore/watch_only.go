package natsstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// errWatchOnly is the error of every call but Watch and Close on a store
// opened with driver.Config.WatchOnly.
var errWatchOnly = errors.New("natsstore: the store was opened for watching only")

// watchOnly is what OpenBackend gives for driver.Config.WatchOnly: a
// connection and the subject names, enough to Watch a mailbox whose
// stream does not exist yet (or a server without JetStream), and
// nothing else. It owns the connection.
type watchOnly struct {
	nc       *nats.Conn
	names    names
	maxBytes int64
}

var (
	_ driver.Backend = (*watchOnly)(nil)
	_ driver.Watcher = (*watchOnly)(nil)
)

// Watch is Store.Watch, on the store's own connection.
func (s *watchOnly) Watch(ctx context.Context, agent string, w driver.WatchFuncs) error {
	if s.nc.IsClosed() {
		return driver.ErrClosed
	}
	return watch(ctx, s.nc, s.names, s.maxBytes, agent, w)
}

// Close closes the connection.
func (s *watchOnly) Close() error {
	s.nc.Close()
	return nil
}

// Deliver fails: the store is for watching only.
func (s *watchOnly) Deliver(context.Context, *envelope.Message) error { return errWatchOnly }

// UpdateCard fails: the store is for watching only.
func (s *watchOnly) UpdateCard(context.Context, string, func(*envelope.Card)) (envelope.Card, error) {
	return envelope.Card{}, errWatchOnly
}

// Card fails: the store is for watching only.
func (s *watchOnly) Card(context.Context, string) (envelope.Card, error) {
	return envelope.Card{}, errWatchOnly
}

// Cards fails: the store is for watching only.
func (s *watchOnly) Cards(context.Context) ([]envelope.Card, error) { return nil, errWatchOnly }

// LoadRecord fails: the store is for watching only.
func (s *watchOnly) LoadRecord(context.Context, driver.Record) ([]byte, error) {
	return nil, errWatchOnly
}

// SaveRecord fails: the store is for watching only.
func (s *watchOnly) SaveRecord(context.Context, driver.Record, []byte) error { return errWatchOnly }

// CreateRecord fails: the store is for watching only.
func (s *watchOnly) CreateRecord(context.Context, driver.Record, []byte) error { return errWatchOnly }

// DeleteRecord fails: the store is for watching only.
func (s *watchOnly) DeleteRecord(context.Context, driver.Record) error { return errWatchOnly }

// ListRecords fails: the store is for watching only.
func (s *watchOnly) ListRecords(context.Context, string) ([]string, error) { return nil, errWatchOnly }

// OpenInbox fails: the store is for watching only.
func (s *watchOnly) OpenInbox(context.Context, string) (driver.Inbox, error) {
	return nil, errWatchOnly
}

// openWatchOnly is the store for watching only on nc, which it owns, with
// the subjects under prefix and messages of at most maxBytes (0: 1 MiB).
// The client's asynchronous errors go to log (nil discards), except those
// Watch reports itself: a subscription refused (its error) and messages
// dropped because the watcher fell behind (a notice).
func openWatchOnly(nc *nats.Conn, prefix string, maxBytes int64, log *slog.Logger) *watchOnly {
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if !errors.Is(err, nats.ErrSlowConsumer) && !errors.Is(err, nats.ErrPermissionViolation) {
			log.Warn("NATS client error", "err", err)
		}
	})
	return &watchOnly{nc: nc, names: names{prefix: prefix}, maxBytes: maxBytes}
}
