package natsstore

import (
	"context"
	"errors"
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// errWatchOnly is the error of every call but Watch and Close on a store
// opened with store.Config.WatchOnly.
var errWatchOnly = errors.New("natsstore: the store was opened for watching only")

// watchOnly is what OpenBackend gives for store.Config.WatchOnly: a
// connection and the subject names, enough to Watch a mailbox whose
// stream does not exist yet (or a server without JetStream), and
// nothing else. It owns the connection.
type watchOnly struct {
	nc       *nats.Conn
	names    names
	maxBytes int64
}

var (
	_ store.Backend = (*watchOnly)(nil)
	_ store.Watcher = (*watchOnly)(nil)
)

// Watch is Store.Watch, on the store's own connection.
func (s *watchOnly) Watch(ctx context.Context, agent string, w store.WatchFuncs) error {
	if s.nc.IsClosed() {
		return store.ErrClosed
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

// LoadState fails: the store is for watching only.
func (s *watchOnly) LoadState(context.Context, string, string) ([]byte, error) {
	return nil, errWatchOnly
}

// SaveState fails: the store is for watching only.
func (s *watchOnly) SaveState(context.Context, string, string, []byte) error { return errWatchOnly }

// OpenInbox fails: the store is for watching only.
func (s *watchOnly) OpenInbox(context.Context, string) (store.Inbox, error) {
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
