package slackfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// ErrConnectionClosed is returned by PushEvent when the Socket Mode
// connection closed before the bot acknowledged the envelope: Slack
// delivers such an event again.
var ErrConnectionClosed = errors.New("slackfake: socket mode connection closed before the envelope was acknowledged")

// Ack is the bot's acknowledgement of an event pushed with PushEvent.
type Ack struct {
	// EnvelopeID is the envelope's id, which the acknowledgement names.
	EnvelopeID string
	// Event is the event as it was sent, its defaults set (its TS, its
	// EventID).
	Event Event
}

// socketConn is one Socket Mode connection.
type socketConn struct {
	c    *websocket.Conn
	wmu  sync.Mutex // one writer of data frames at a time
	done chan struct{}

	mu      sync.Mutex
	pending map[string]chan struct{} // by envelope id, closed when acknowledged
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveSocket runs one Socket Mode connection: a hello, pings, and the
// acknowledgements of the envelopes handed to the pushes waiting for them.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	sc := &socketConn{c: c, done: make(chan struct{}), pending: map[string]chan struct{}{}}
	s.mu.Lock()
	s.conns = append(s.conns, sc)
	s.accepted++
	n := len(s.conns)
	s.mu.Notify()
	s.mu.Unlock()
	defer s.forget(sc)
	if err := sc.writeJSON(map[string]any{"type": "hello", "num_connections": n,
		"connection_info": map[string]string{"app_id": "A0APP"},
		"debug_info":      map[string]any{"host": "slackfake", "approximate_connection_time": 3600}}); err != nil {
		return
	}
	go s.ping(sc)
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		var res struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(data, &res) != nil || res.EnvelopeID == "" {
			continue // not an acknowledgement: Slack ignores it
		}
		sc.mu.Lock()
		acked := sc.pending[res.EnvelopeID]
		delete(sc.pending, res.EnvelopeID)
		sc.mu.Unlock()
		if acked != nil {
			close(acked)
			s.mu.Lock()
			s.acks++
			s.mu.Notify()
			s.mu.Unlock()
		}
	}
}

// forget closes sc and takes it off the live connections.
func (s *Server) forget(sc *socketConn) {
	_ = sc.c.Close()
	close(sc.done)
	s.mu.Lock()
	for i, x := range s.conns {
		if x == sc {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			break
		}
	}
	s.mu.Notify()
	s.mu.Unlock()
}

// ping pings sc every PingInterval until it closes, as Slack does.
func (s *Server) ping(sc *socketConn) {
	t := time.NewTicker(s.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if sc.c.WriteControl(websocket.PingMessage, []byte("slackfake"), time.Now().Add(5*time.Second)) != nil {
				return // the reader sees the connection broken
			}
		case <-sc.done:
			return
		}
	}
}

func (sc *socketConn) writeJSON(v any) error {
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	return sc.c.WriteJSON(v)
}

// PushEvent sends e in an events_api envelope on the newest Socket Mode
// connection (waiting for one) and returns once the bot acknowledged it;
// ErrConnectionClosed when the connection closed before, or ctx's error.
// Pushing an event again with its EventID and TS (and a RetryAttempt) is
// Slack's retry of it.
func (s *Server) PushEvent(ctx context.Context, e Event) (Ack, error) {
	e = s.defaults(e)
	s.mu.Lock()
	for _, f := range e.Files {
		s.files[f.ID] = f
	}
	s.seq++
	id := "env-" + strconv.Itoa(s.seq)
	s.mu.Unlock()
	var sc *socketConn
	if err := s.mu.Wait(ctx, func() bool {
		if len(s.conns) > 0 {
			sc = s.conns[len(s.conns)-1]
		}
		return sc != nil
	}); err != nil {
		return Ack{}, fmt.Errorf("slackfake: no socket mode connection: %w", err)
	}
	acked := make(chan struct{})
	sc.mu.Lock()
	sc.pending[id] = acked
	sc.mu.Unlock()
	envelope := map[string]any{"type": "events_api", "envelope_id": id, "payload": s.payload(e),
		"accepts_response_payload": false, "retry_attempt": e.RetryAttempt, "retry_reason": e.RetryReason}
	if err := sc.writeJSON(envelope); err != nil {
		return Ack{}, fmt.Errorf("slackfake: push event: %w", err)
	}
	select {
	case <-acked:
		return Ack{EnvelopeID: id, Event: e}, nil
	case <-sc.done:
		return Ack{}, ErrConnectionClosed
	case <-ctx.Done():
		return Ack{}, ctx.Err()
	}
}

// Disconnect asks every live connection to reconnect (a "disconnect"
// request, as Slack sends before it refreshes a connection).
func (s *Server) Disconnect() {
	for _, sc := range s.live() {
		_ = sc.writeJSON(map[string]any{"type": "disconnect", "reason": "refresh_requested",
			"debug_info": map[string]string{"host": "slackfake"}})
	}
}

// DropConnections closes every live connection, as a network failure
// would.
func (s *Server) DropConnections() {
	for _, sc := range s.live() {
		_ = sc.c.Close()
	}
}

func (s *Server) live() []*socketConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*socketConn(nil), s.conns...)
}

// WaitConnections waits until n Socket Mode connections were accepted in
// all.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return s.accepted >= n })
}

// WaitLive waits until n Socket Mode connections are open.
func (s *Server) WaitLive(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return len(s.conns) == n })
}
