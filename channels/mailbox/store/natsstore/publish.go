package natsstore

import (
	"context"
	"errors"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A publish written to the socket as the connection broke is lost with
// it, and no error says so: the socket took the bytes. Its
// acknowledgement then never comes, and the publisher would wait for it
// until its context ends (the whole of a caller's deadline, or
// jetstream's default of 5 s without one). Every message a store
// publishes carries a Nats-Msg-Id, so sending it again is safe: publish
// sends it again as soon as the connection is back.

// reconnects tells of the connection's reconnects: back returns a
// context that ends at the next one.
type reconnects struct {
	nc     *nats.Conn
	status chan nats.Status
	done   chan struct{}

	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
}

// watchReconnects starts following nc's reconnects until stop.
func watchReconnects(nc *nats.Conn) *reconnects {
	r := &reconnects{nc: nc, status: nc.StatusChanged(nats.CONNECTED), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go r.run()
	return r
}

func (r *reconnects) run() {
	defer close(r.done)
	for range r.status { // closed by stop (RemoveStatusListener)
		r.mu.Lock()
		r.cancel()
		r.ctx, r.cancel = context.WithCancel(context.Background())
		r.mu.Unlock()
	}
}

// back returns a context that ends at the connection's next reconnect.
func (r *reconnects) back() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ctx
}

// stop stops following the reconnects. The last context is left as it
// is: a publish still waiting goes on waiting for its acknowledgement (a
// cancelled one would make it send again and again).
func (r *reconnects) stop() {
	r.nc.RemoveStatusListener(r.status) // which closes it
	<-r.done
}

// publish stores m (which must carry a Nats-Msg-Id) and returns the
// server's acknowledgement. A reconnect while it waits for that sends m
// again, as often as the connection comes back before ctx ends; again
// reports that m was sent more than once, so that a duplicate
// acknowledgement is most likely of this publish's own first copy.
func (s *Store) publish(ctx context.Context, m *nats.Msg) (ack *jetstream.PubAck, again bool, err error) {
	for sent := 0; ; sent++ {
		back := s.reconnects.back()
		pctx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(back, cancel)
		ack, err = s.js.PublishMsg(pctx, m)
		stop()
		cancel()
		if err == nil || ctx.Err() != nil || back.Err() == nil || !errors.Is(err, context.Canceled) {
			return ack, sent > 0, err
		}
		s.opts.Logger.Debug("connection back while a publish waited for its acknowledgement; sending it again",
			"subject", m.Subject, "msgid", m.Header.Get(jetstream.MsgIDHeader))
	}
}
