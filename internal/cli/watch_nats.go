package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// natsWatchSeen bounds the message ids watchNATS remembers to show a
// retried publish once.
const natsWatchSeen = 4096

// watchNATS follows the mailbox on the NATS server the config names with
// a plain subscription to the inbox subjects (ordinary and priority): it
// sees each message as it is published, and it claims, creates and
// changes nothing. Messages sent before it started are not shown; a
// retried publish is shown once. A lost connection, the reconnection and
// messages dropped because watch fell behind are said on stderr (what is
// published while the connection is down is not seen); watching goes on.
func (a *app) watchNATS(ctx context.Context, s *settings, agent string, show func(string, *envelope.Message, error) error) error {
	c, err := natsstore.DecodeSection(s.mailbox.StoreConfig().Section)
	if err != nil {
		return err
	}
	nc, err := c.Connect("watch")
	if err != nil {
		return err
	}
	defer nc.Close()
	news, closed := connectionNews(nc, c.URL)
	arrived := make(chan *nats.Msg, 256)
	subjects := []string{c.SubjectPrefix + ".*.inbox.*", c.SubjectPrefix + ".*.priority.*"}
	for _, subject := range subjects {
		if _, err := nc.ChanSubscribe(subject, arrived); err != nil {
			return fmt.Errorf("watch: subscribe to %s on NATS at %s: %w", subject, c.URL, err)
		}
	}
	// The server answers the flush after it has taken the subscriptions, or
	// refused them (credentials that do not allow reading other inboxes).
	if err := nc.Flush(); err != nil {
		return fmt.Errorf("watch: NATS at %s: %w", c.URL, err)
	}
	if err := nc.LastError(); errors.Is(err, nats.ErrPermissionViolation) {
		return fmt.Errorf("watch: NATS at %s: %w (watching needs permission to subscribe to %s)", c.URL, err, strings.Join(subjects, " and "))
	}
	fmt.Fprintf(a.env.Stderr, "watching %s on NATS at %s (Ctrl-C to stop)\n", watched(agent), c.URL)
	seen := newSeenSet(natsWatchSeen)
	for {
		var m *nats.Msg
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			return fmt.Errorf("watch: the connection to NATS at %s was closed", c.URL)
		case line := <-news:
			fmt.Fprintf(a.env.Stderr, "switchboard: %s\n", line)
			continue
		case m = <-arrived:
		}
		msg, err := envelope.DecodeBytes(m.Data)
		if err == nil && int64(len(m.Data)) > s.mailbox.MaxMessageBytes {
			msg, err = nil, fmt.Errorf("message too large: %d bytes, over channels.mailbox.maxMessageBytes", len(m.Data))
		}
		switch {
		case err == nil && agent != "" && msg.To != agent,
			err == nil && !seen.add(msg.To+" "+msg.ID):
			continue
		case err != nil && agent != "" && !strings.HasPrefix(m.Subject, c.SubjectPrefix+"."+agent+"."):
			continue
		}
		if err := show(m.Subject, msg, err); err != nil {
			return err
		}
	}
}

// connectionNews has nc report, as lines for stderr on news, the loss of
// its connection to url, its return, and messages a subscription dropped
// because they were not taken in time (news that does not fit the buffer
// is left out); closed is closed when nc is closed for good.
func connectionNews(nc *nats.Conn, url string) (news <-chan string, closed <-chan struct{}) {
	lines := make(chan string, 16)
	say := func(format string, args ...any) {
		select {
		case lines <- fmt.Sprintf(format, args...):
		default:
		}
	}
	done := make(chan struct{})
	nc.SetDisconnectErrHandler(func(_ *nats.Conn, err error) {
		say("lost the connection to NATS at %s (%v); reconnecting, and messages published meanwhile are not shown", url, err)
	})
	nc.SetReconnectHandler(func(*nats.Conn) { say("connected to NATS at %s again; watching goes on", url) })
	nc.SetClosedHandler(func(*nats.Conn) { close(done) })
	nc.SetErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
		if !errors.Is(err, nats.ErrSlowConsumer) || sub == nil {
			say("NATS at %s: %v", url, err)
			return
		}
		n, _ := sub.Dropped()
		say("watch fell behind: %d message(s) dropped without being shown", n)
	})
	return lines, done
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

// printWatched prints one message watch saw: a message line with --json,
// else "TIME FROM → TO [TYPE] TEXT", or "TIME unreadable WHERE: REASON".
func (a *app) printWatched(where string, msg *envelope.Message, readErr error, jsonOut bool) error {
	if jsonOut {
		return writeJSON(a.env.Stdout, newMessageLine(where, msg, readErr))
	}
	if msg == nil {
		_, err := fmt.Fprintf(a.env.Stdout, "%s unreadable %s: %v\n", time.Now().Format(time.TimeOnly), where, readErr)
		return err
	}
	line := msg.Timestamp.Local().Format(time.TimeOnly) + " " + msg.From + " → " + msg.To
	if msg.Type != envelope.TypeMessage {
		line += " [" + kindLabel(msg.Type, msg.Task) + "]"
	}
	_, err := fmt.Fprintln(a.env.Stdout, strings.TrimSpace(line+" "+summary(msg.Content.Parts)))
	return err
}
