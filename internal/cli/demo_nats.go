package cli

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// natsStartLimit bounds the start of the embedded nats-server.
const natsStartLimit = 20 * time.Second

// startDemoNATS starts a nats-server with JetStream on a free port of
// 127.0.0.1, storing in dir. It leaves signals to the demo.
func startDemoNATS(dir string) (*server.Server, error) {
	srv, err := server.NewServer(&server.Options{
		ServerName: "switchboard-demo", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: dir, MaxPayload: 4 << 20, NoLog: true, NoSigs: true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded nats-server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(natsStartLimit) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("embedded nats-server: not ready within %s", natsStartLimit)
	}
	return srv, nil
}

// demoTap is a plain NATS subscription to every inbox subject of the
// mailbox: it sees each message between the agents as it is published,
// which is what the transcript shows on NATS (the stream keeps a message
// only until its receiver acknowledges it). It is used by one goroutine.
type demoTap struct {
	nc   *nats.Conn
	sub  *nats.Subscription
	seen map[string]bool
	msgs []*envelope.Message
}

// newDemoTap subscribes to the mailbox subjects on the server at url.
func newDemoTap(url string) (*demoTap, error) {
	nc, err := nats.Connect(url, nats.Name("switchboard demo transcript"), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", url, err)
	}
	t := &demoTap{nc: nc, seen: map[string]bool{}}
	subject := natsstore.DefaultConfig().SubjectPrefix + ".*.inbox.*"
	t.sub, err = nc.SubscribeSync(subject)
	if err == nil {
		err = nc.Flush() // the server has the subscription before any agent sends
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("subscribe to %s at %s: %w", subject, url, err)
	}
	return t, nil
}

// lines returns the messages seen so far as transcript lines: every
// message the server had passed on when the call began, each once (a
// retried publish is seen again). What is not a message is skipped (its
// receiver sets it aside).
func (t *demoTap) lines() ([]demoLine, error) {
	// The server answers the ping after the messages it sent before, and
	// the client queues those before it reads the answer.
	if err := t.nc.Flush(); err != nil {
		return nil, fmt.Errorf("read the mailbox subjects: %w", err)
	}
	for {
		m, err := t.sub.NextMsg(0)
		if errors.Is(err, nats.ErrTimeout) {
			break // nothing more queued
		}
		if err != nil {
			return nil, fmt.Errorf("read the mailbox subjects: %w", err)
		}
		if msg, err := envelope.DecodeBytes(m.Data); err == nil && !t.seen[msg.ID] {
			t.seen[msg.ID] = true
			t.msgs = append(t.msgs, msg)
		}
	}
	out := make([]demoLine, 0, len(t.msgs))
	for _, m := range t.msgs {
		out = append(out, demoMessageLine(m))
	}
	sortLines(out)
	return out, nil
}

func (t *demoTap) close() { t.nc.Close() }

// sortLines orders transcript lines by time, then kind.
func sortLines(lines []demoLine) {
	slices.SortStableFunc(lines, func(a, b demoLine) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.via, b.via))
	})
}
