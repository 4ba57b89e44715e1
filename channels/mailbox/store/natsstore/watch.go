package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// watchSeen bounds the message ids a Watch remembers to report a retried
// publish once.
const watchSeen = 4096

// watchBuffer is how many published messages a Watch holds while its
// caller is busy; beyond that the client drops them (and Watch says so).
const watchBuffer = 256

var _ driver.Watcher = (*Store)(nil)

// Watch implements driver.Watcher with a plain subscription to the inbox
// subjects (ordinary and priority) on the store's connection: it sees
// each message as it is published, and it claims, creates and changes
// nothing, so the stream need not exist. Messages published before it
// started are not reported; a retried publish is reported once.
// Watched.Ref is the subject. A lost connection, the reconnection and
// messages dropped because the caller fell behind are said through
// w.Notice (what is published while the connection is down is not seen),
// and watching goes on. Credentials that may not subscribe to the inbox
// subjects of every agent make it fail at once; a connection closed for
// good ends it with an error.
func (s *Store) Watch(ctx context.Context, agent string, w driver.WatchFuncs) error {
	if err := s.inboxes.Err(); err != nil {
		return err
	}
	return watch(ctx, s.nc, s.names, s.opts.MaxMessageBytes, agent, w)
}

// watch is Watch on connection nc, for the subjects of n, with messages
// of at most maxBytes.
func watch(ctx context.Context, nc *nats.Conn, n names, maxBytes int64, agent string, w driver.WatchFuncs) error {
	if agent != "" {
		if err := envelope.ValidateAgentID(agent); err != nil {
			return err
		}
	}
	url := nc.ConnectedUrlRedacted()
	status := nc.StatusChanged(nats.RECONNECTING, nats.CONNECTED, nats.CLOSED)
	defer nc.RemoveStatusListener(status)
	arrived := make(chan *nats.Msg, watchBuffer)
	subjects := []string{n.prefix + ".*.inbox.*", n.prefix + ".*.priority.*"}
	var subs []*nats.Subscription
	defer func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
	}()
	for _, subject := range subjects {
		sub, err := nc.ChanSubscribe(subject, arrived)
		if err != nil {
			return fmt.Errorf("watch: subscribe to %s on NATS at %s: %w", subject, url, err)
		}
		subs = append(subs, sub)
	}
	// The server answers the flush after it has taken the subscriptions, or
	// refused them (credentials that do not allow reading other inboxes).
	if err := nc.Flush(); err != nil {
		return fmt.Errorf("watch: NATS at %s: %w", url, err)
	}
	if err := nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) {
		return fmt.Errorf("watch: NATS at %s: %w (watching needs permission to subscribe to %s)", url, err, strings.Join(subjects, " and "))
	}
	if w.Ready != nil {
		w.Ready()
	}
	f := follower{w: w, url: url, seen: newSeenSet(watchSeen), subs: subs, maxBytes: maxBytes}
	if agent != "" {
		f.only = n.prefix + "." + token(agent) + "."
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case st := <-status:
			if err := f.changed(st, nc); err != nil {
				return err
			}
		case m := <-arrived:
			if err := f.report(m); err != nil {
				return err
			}
		}
	}
}

// follower is the state of one watch.
type follower struct {
	w        driver.WatchFuncs
	url      string
	only     string // the subject prefix of the one inbox watched; "" = every one
	seen     *seenSet
	subs     []*nats.Subscription
	dropped  int // messages the subscriptions dropped, as said so far
	maxBytes int64
}

// notice says line through w.Notice.
func (f *follower) notice(format string, args ...any) {
	if f.w.Notice != nil {
		f.w.Notice(fmt.Sprintf(format, args...))
	}
}

// changed says what a change of the connection's status means for the
// watch; a connection closed for good ends it.
func (f *follower) changed(st nats.Status, nc *nats.Conn) error {
	switch st {
	case nats.RECONNECTING:
		why := ""
		if err := nc.LastError(); err != nil {
			why = fmt.Sprintf(" (%v)", err)
		}
		f.notice("lost the connection to NATS at %s%s; reconnecting, and messages published meanwhile are not shown", f.url, why)
	case nats.CONNECTED:
		f.notice("connected to NATS at %s again; watching goes on", f.url)
	case nats.CLOSED:
		return fmt.Errorf("watch: the connection to NATS at %s was closed", f.url)
	}
	return nil
}

// report passes a published message to w.Arrived, unless it is for
// another inbox or a retried publish already reported, after saying how
// many messages the subscriptions dropped since the last one.
func (f *follower) report(m *nats.Msg) error {
	f.sayDropped()
	if f.only != "" && !strings.HasPrefix(m.Subject, f.only) {
		return nil
	}
	got := driver.Watched{Ref: m.Subject}
	if n := int64(len(m.Data)); n > f.maxBytes {
		got.Err = fmt.Errorf("message too large: %d bytes, over channels.mailbox.maxMessageBytes", n)
	} else {
		got.Message, got.Err = envelope.DecodeBytes(m.Data)
	}
	if got.Err == nil && !f.seen.add(got.Message.To+" "+got.Message.ID) {
		return nil
	}
	if f.w.Arrived == nil {
		return nil
	}
	return f.w.Arrived(got)
}

// sayDropped says how many messages the subscriptions dropped, because
// the caller fell behind, since it last said so.
func (f *follower) sayDropped() {
	total := 0
	for _, sub := range f.subs {
		if n, err := sub.Dropped(); err == nil {
			total += n
		}
	}
	if total > f.dropped {
		f.notice("watch fell behind: %d message(s) dropped without being shown", total-f.dropped)
		f.dropped = total
	}
}

// seenSet remembers the last n keys added.
type seenSet struct {
	keys map[string]bool
	ring []string
	next int
}

func newSeenSet(n int) *seenSet { return &seenSet{keys: map[string]bool{}, ring: make([]string, n)} }

// add adds key and reports whether it is new.
func (s *seenSet) add(key string) bool {
	if s.keys[key] {
		return false
	}
	delete(s.keys, s.ring[s.next])
	s.ring[s.next], s.keys[key] = key, true
	s.next = (s.next + 1) % len(s.ring)
	return true
}
