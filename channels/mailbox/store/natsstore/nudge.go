package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Nudger = (*Store)(nil)

// nudge is the core NATS subject of the nudges of agent's record key:
// <prefix>.<agent>.nudge.<key>. No stream holds it (the main stream's
// subjects have inbox, priority or dead for their third token, and its
// republish takes four tokens): a nudge is published to whoever listens
// and forgotten, which costs the server nothing while no one publishes.
func (n names) nudge(agent, key string) string {
	return n.prefix + "." + token(agent) + ".nudge." + key
}

// Nudge implements driver.Nudger with a core NATS publish, flushed so
// that a command that exits right after it does not lose it.
func (s *Store) Nudge(ctx context.Context, agent, key string) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := envelope.ValidateAgentID(agent); err != nil {
		return err
	}
	if err := checkNudgeKey(key); err != nil {
		return err
	}
	subject := s.names.nudge(agent, key)
	if err := s.nc.Publish(subject, nil); err != nil {
		return fmt.Errorf("nudge %s of %q: %w", key, agent, err)
	}
	if err := s.flush(ctx); err != nil {
		return fmt.Errorf("nudge %s of %q: %w", key, agent, err)
	}
	// The server answers the flush after it has refused the publish, if
	// it did (a user without permission to publish the subject).
	if err := s.nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) && refused(err, "Publish to", subject) {
		return fmt.Errorf("nudge %s of %q: %w", key, agent, err)
	}
	return nil
}

// ListenNudges implements driver.Nudger with a core NATS subscription,
// which the client makes again by itself after a reconnect; fn is also
// called after each reconnect, once the server has the subscription
// again (or the wait for it gave up), for the nudges published while the
// connection was down. A subscription the server refuses (credentials
// without permission to subscribe to the subject) is an error.
func (s *Store) ListenNudges(ctx context.Context, agent, key string, fn func()) (stop func(), err error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	if err := checkNudgeKey(key); err != nil {
		return nil, err
	}
	subject := s.names.nudge(agent, key)
	pending := make(chan struct{}, 1)
	poke := func() {
		select {
		case pending <- struct{}{}:
		default: // one is pending already
		}
	}
	// Listened to before subscribing: a reconnect in between is not missed.
	status := s.nc.StatusChanged(nats.CONNECTED)
	sub, err := s.subscribe(ctx, subject, func(*nats.Msg) { poke() })
	if err != nil {
		s.nc.RemoveStatusListener(status)
		return nil, fmt.Errorf("listen to nudges on %s: %w", subject, err)
	}
	life, end := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		back := status
		for {
			select {
			case <-life.Done():
				return
			case _, ok := <-back:
				if !ok { // the connection closed for good (it closes its listeners)
					back = nil
					continue
				}
				// Back after a reconnect: nudges may have been missed.
				// The client tells of it before it has sent the
				// subscription again, and fn reads what was recorded:
				// it runs once the server has the subscription (a flush
				// is answered after it), or a nudge published between
				// fn's read and the subscription would be lost. A failed
				// flush (down again) still pokes; the next reconnect
				// pokes once more.
				settle, cancel := context.WithTimeout(life, requestTimeout)
				_ = s.nc.FlushWithContext(settle)
				cancel()
				poke()
			case <-pending:
				fn()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = sub.Unsubscribe()
			end()
			wg.Wait()
			s.nc.RemoveStatusListener(status) // which closes it
		})
	}, nil
}

// subscribe subscribes to subject and waits until the server has taken
// the subscription. One the server refuses (credentials without the
// permission) is an error wrapping nats.ErrPermissionViolation.
func (s *Store) subscribe(ctx context.Context, subject string, cb nats.MsgHandler) (*nats.Subscription, error) {
	sub, err := s.nc.Subscribe(subject, cb)
	if err != nil {
		return nil, err
	}
	// The server answers the flush after it has taken the subscription,
	// or refused it.
	if err := s.flush(ctx); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	if err := s.nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) && refused(err, "Subscription to", subject) {
		_ = sub.Unsubscribe()
		return nil, err
	}
	return sub, nil
}

// flush waits until the server has taken what the connection sent, at
// most until ctx ends or, when ctx has no deadline, requestTimeout.
func (s *Store) flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	return s.nc.FlushWithContext(ctx)
}

// refused reports whether err, a permissions violation, is about what
// ("Publish to", "Subscription to") subject, as the server words it.
func refused(err error, what, subject string) bool {
	return strings.Contains(err.Error(), what+` "`+subject+`"`)
}

// checkNudgeKey refuses a record key that is not one subject token.
func checkNudgeKey(key string) error {
	if key == "" {
		return errors.New("nudge: empty record key")
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("nudge: record key %q: want letters, digits, '-' or '_'", key)
		}
	}
	return nil
}
