package feishufake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"
)

// serviceID is the service id the server gives long connections.
const serviceID = 7

// ErrConnectionClosed is returned by PushEvent when the long connection
// closed before the bot answered the event.
var ErrConnectionClosed = errors.New("feishufake: long connection closed before the event was answered")

// Ack is the bot's answer to an event pushed on the long connection.
type Ack struct {
	// Code is the status code of its response frame: 200 when the bot
	// took the event; anything else makes Feishu push it again later.
	Code int
}

// wsConn is one long connection.
type wsConn struct {
	c    *websocket.Conn
	wmu  sync.Mutex // one writer at a time
	done chan struct{}

	mu      sync.Mutex
	pending map[string]chan Ack // by frame message_id
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// endpoint answers the SDK's endpoint discovery: the URL of the long
// connection and the client configuration.
func (s *Server) endpoint(w http.ResponseWriter, r *http.Request) {
	if f, ok := s.takeFailure(CallEndpoint); ok {
		fail(w, f)
		return
	}
	var body struct{ AppID, AppSecret string }
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 9499, "msg": "bad request"})
		return
	}
	if body.AppID != s.opts.AppID || body.AppSecret != s.opts.AppSecret {
		writeJSON(w, http.StatusOK, map[string]any{"code": 10014, "msg": "app secret invalid"})
		return
	}
	s.mu.Lock()
	s.seq++
	device := s.seq
	s.mu.Unlock()
	url := "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws?device_id=dev" + strconv.Itoa(device) +
		"&service_id=" + strconv.Itoa(serviceID)
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "data": larkws.Endpoint{
		Url: url, ClientConfig: s.clientConfig()}})
}

func (s *Server) clientConfig() *larkws.ClientConfig {
	return &larkws.ClientConfig{ReconnectCount: -1, ReconnectInterval: s.opts.ReconnectInterval,
		PingInterval: s.opts.PingInterval}
}

// serveWS runs one long connection: it answers pings with pongs and hands
// the bot's response frames to the pushes waiting for them.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	wc := &wsConn{c: c, done: make(chan struct{}), pending: map[string]chan Ack{}}
	s.mu.Lock()
	s.conns = append(s.conns, wc)
	s.accepted++
	s.mu.Notify()
	s.mu.Unlock()
	defer func() {
		_ = c.Close()
		close(wc.done)
		s.mu.Lock()
		for i, x := range s.conns {
			if x == wc {
				s.conns = append(s.conns[:i], s.conns[i+1:]...)
				break
			}
		}
		s.mu.Notify()
		s.mu.Unlock()
	}()
	for {
		mt, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		if mt != websocket.BinaryMessage {
			continue
		}
		var f larkws.Frame
		if err := f.Unmarshal(data); err != nil {
			return // not the SDK's protocol
		}
		hs := larkws.Headers(f.Headers)
		switch larkws.FrameType(f.Method) {
		case larkws.FrameTypeControl:
			if larkws.MessageType(hs.GetString(larkws.HeaderType)) == larkws.MessageTypePing {
				s.mu.Lock()
				s.pings++
				s.mu.Notify()
				s.mu.Unlock()
				pong := larkws.Frame{Service: f.Service, Method: int32(larkws.FrameTypeControl),
					Headers: larkws.Headers{{Key: larkws.HeaderType, Value: string(larkws.MessageTypePong)}}}
				if !s.opts.QuietPongs {
					pong.Payload, _ = json.Marshal(s.clientConfig())
				}
				if wc.write(&pong) != nil {
					return
				}
			}
		case larkws.FrameTypeData:
			var resp larkws.Response
			if err := json.Unmarshal(f.Payload, &resp); err != nil {
				return
			}
			wc.answer(hs.GetString(larkws.HeaderMessageID), Ack{Code: resp.StatusCode})
		}
	}
}

func (wc *wsConn) write(f *larkws.Frame) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	wc.wmu.Lock()
	defer wc.wmu.Unlock()
	return wc.c.WriteMessage(websocket.BinaryMessage, data)
}

func (wc *wsConn) answer(id string, a Ack) {
	wc.mu.Lock()
	ch := wc.pending[id]
	delete(wc.pending, id)
	wc.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

// PushEvent sends ev on the newest long connection (waiting for one) and
// returns the bot's answer to it.
func (s *Server) PushEvent(ctx context.Context, ev Event) (Ack, error) {
	s.mu.Lock()
	s.chats[ev.MessageID] = ev.ChatID
	s.mu.Unlock()
	return s.PushRaw(ctx, ev.Payload(""), 1)
}

// PushRaw sends payload, an event's JSON, on the newest long connection
// (waiting for one), cut into parts frames as Feishu cuts large events,
// and returns the bot's answer.
func (s *Server) PushRaw(ctx context.Context, payload []byte, parts int) (Ack, error) {
	var wc *wsConn
	if err := s.mu.Wait(ctx, func() bool {
		if len(s.conns) > 0 {
			wc = s.conns[len(s.conns)-1]
		}
		return wc != nil
	}); err != nil {
		return Ack{}, fmt.Errorf("feishufake: no long connection: %w", err)
	}
	s.mu.Lock()
	s.seq++
	id := "fm_" + strconv.Itoa(s.seq)
	s.mu.Unlock()
	answer := make(chan Ack, 1)
	wc.mu.Lock()
	wc.pending[id] = answer
	wc.mu.Unlock()
	parts = max(parts, 1)
	size := (len(payload) + parts - 1) / parts
	for i := range parts {
		part := payload[min(i*size, len(payload)):min((i+1)*size, len(payload))]
		f := larkws.Frame{SeqID: uint64(i), Service: serviceID, Method: int32(larkws.FrameTypeData),
			Headers: larkws.Headers{
				{Key: larkws.HeaderType, Value: string(larkws.MessageTypeEvent)},
				{Key: larkws.HeaderMessageID, Value: id},
				{Key: larkws.HeaderSum, Value: strconv.Itoa(parts)},
				{Key: larkws.HeaderSeq, Value: strconv.Itoa(i)},
				{Key: larkws.HeaderTraceID, Value: "trace_" + id},
			}, Payload: part}
		if err := wc.write(&f); err != nil {
			return Ack{}, fmt.Errorf("feishufake: push event: %w", err)
		}
	}
	select {
	case a := <-answer:
		return a, nil
	case <-wc.done:
		return Ack{}, ErrConnectionClosed
	case <-ctx.Done():
		return Ack{}, ctx.Err()
	}
}

// Connections returns how many long connections were accepted so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// WaitConnections waits until n long connections were accepted in all.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return s.accepted >= n })
}

// WaitLive waits until n long connections are open.
func (s *Server) WaitLive(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return len(s.conns) == n })
}

// WaitPings waits until n pings were received in all.
func (s *Server) WaitPings(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return s.pings >= n })
}

// DropConnections closes every live long connection, as a network
// failure or a server restart would.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := append([]*wsConn(nil), s.conns...)
	s.mu.Unlock()
	for _, wc := range conns {
		_ = wc.c.Close()
	}
}
