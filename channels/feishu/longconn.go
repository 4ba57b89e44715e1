package feishu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"

	"github.com/switchboard-dev/switchboard/channels"
)

// longConn is Feishu's long connection. It speaks what the SDK's
// ws.Client speaks, with the SDK's own types: the endpoint discovery call,
// the protobuf frames and their headers, pings answered by pongs that
// carry the client configuration, events cut into parts, and a response
// frame for each event. It runs under a context, so that the channel can
// stop it, and with the channel's HTTP client; the SDK's client can be
// neither stopped nor given a client, and races on its connection fields.
type longConn struct {
	base      string // the open platform's address
	appID     string
	appSecret channels.Secret
	http      *http.Client
	dialer    *websocket.Dialer
	// handle handles an event's payload and returns the status code of
	// its response frame: 200 taken, anything else makes Feishu push it
	// again later.
	handle func(ctx context.Context, payload []byte) int
	log    *slog.Logger
	// reconnect is the policy of the waits between connection attempts.
	reconnect channels.Retry
	handlers  sync.WaitGroup // events being handled
}

// session is one connection.
type session struct {
	conn    *websocket.Conn
	service int32
	ping    time.Duration // the first interval between pings
	wmu     sync.Mutex    // one writer at a time
	every   chan time.Duration
	parts   map[string][][]byte // events cut into parts, by frame message id
}

// Codes of the endpoint discovery call that are worth retrying.
const (
	endpointBusy     = 1
	endpointInternal = 1000040343
)

// connect discovers the endpoint and dials it. A refusal that trying
// again will not change (credentials, a forbidden app, too many
// connections) is a permanent error naming what to fix; anything else is
// channels.Temporary.
func (l *longConn) connect(ctx context.Context) (*session, error) {
	body, _ := json.Marshal(map[string]string{"AppID": l.appID, "AppSecret": l.appSecret.Reveal()})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+larkws.GenEndpointUri, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s.baseUrl: %w", keyPath, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("locale", "zh")
	resp, err := l.http.Do(req)
	if err != nil {
		return nil, channels.Temporary(fmt.Errorf("feishu long connection: endpoint: %w", err))
	}
	defer resp.Body.Close()
	var ep larkws.EndpointResp
	if resp.StatusCode != http.StatusOK {
		return nil, channels.Temporary(fmt.Errorf("feishu long connection: endpoint: HTTP %s", resp.Status))
	}
	if err := json.NewDecoder(resp.Body).Decode(&ep); err != nil {
		return nil, channels.Temporary(fmt.Errorf("feishu long connection: endpoint: %w", err))
	}
	switch {
	case ep.Code == endpointBusy || ep.Code == endpointInternal:
		return nil, channels.Temporary(fmt.Errorf("feishu long connection: endpoint: code %d: %s", ep.Code, ep.Msg))
	case ep.Code == codeBadAppID || ep.Code == codeBadAppSecret:
		return nil, codeError("long connection", nil, ep.Code, ep.Msg)
	case ep.Code != 0:
		return nil, fmt.Errorf("feishu long connection refused (code %d: %s); check %s.appId and %s.appSecret, "+
			"and that the app receives events by long connection (Events & Callbacks in the developer console)",
			ep.Code, ep.Msg, keyPath, keyPath)
	case ep.Data == nil || ep.Data.Url == "":
		return nil, channels.Temporary(errors.New("feishu long connection: endpoint: no URL"))
	}
	u, err := url.Parse(ep.Data.Url)
	if err != nil {
		return nil, channels.Temporary(fmt.Errorf("feishu long connection: endpoint URL: %w", err))
	}
	conn, hresp, err := l.dialer.DialContext(ctx, ep.Data.Url, nil)
	if err != nil {
		return nil, dialError(hresp, err)
	}
	service, _ := strconv.ParseInt(u.Query().Get(larkws.ServiceID), 10, 32)
	s := &session{conn: conn, service: int32(service), ping: 2 * time.Minute,
		every: make(chan time.Duration, 1), parts: map[string][][]byte{}}
	if cc := ep.Data.ClientConfig; cc != nil {
		if cc.PingInterval > 0 {
			s.ping = time.Duration(cc.PingInterval) * time.Second
		}
		if cc.ReconnectInterval > 0 {
			l.reconnect.MaxBackoff = time.Duration(cc.ReconnectInterval) * time.Second
		}
	}
	return s, nil
}

// dialError classifies a failed WebSocket handshake as the SDK does.
func dialError(resp *http.Response, err error) error {
	if resp == nil {
		return channels.Temporary(fmt.Errorf("feishu long connection: %w", err))
	}
	status, _ := strconv.Atoi(resp.Header.Get(larkws.HeaderHandshakeStatus))
	authCode, _ := strconv.Atoi(resp.Header.Get(larkws.HeaderHandshakeAuthErrCode))
	msg := resp.Header.Get(larkws.HeaderHandshakeMsg)
	switch {
	case status == larkws.Forbidden:
		return fmt.Errorf("feishu long connection forbidden: %s", msg)
	case status == larkws.AuthFailed && authCode == larkws.ExceedConnLimit:
		return fmt.Errorf("feishu long connection refused: too many connections for app %s (is another process running with it?): %s", keyPath+".appId", msg)
	}
	return channels.Temporary(fmt.Errorf("feishu long connection: handshake: HTTP %d %s: %w", resp.StatusCode, msg, err))
}

// run serves s (nil: not connected yet), reconnecting whenever the
// connection is lost, until ctx ends; then it waits for the events in
// hand.
func (l *longConn) run(ctx context.Context, s *session) {
	defer l.handlers.Wait()
	attempt := 0
	for {
		if s != nil {
			err := l.serve(ctx, s)
			if ctx.Err() != nil {
				return
			}
			l.log.Warn("feishu long connection lost; reconnecting", "err", err)
			attempt = 0
		}
		attempt++
		wait, _ := l.reconnect.Wait(attempt, channels.ErrTemporary)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		var err error
		if s, err = l.connect(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			level := slog.LevelWarn
			if !channels.IsTemporary(err) {
				level = slog.LevelError
			}
			l.log.Log(ctx, level, "feishu long connection not connected; trying again", "attempt", attempt, "err", err)
			continue
		}
		l.log.Info("feishu long connection connected again")
	}
}

// serve reads s's frames until the connection breaks or ctx ends, pinging
// meanwhile, and handles each event in a goroutine of its own.
func (l *longConn) serve(ctx context.Context, s *session) error {
	stop := make(chan struct{})
	defer close(stop)
	go func() { // unblock the reader when ctx ends
		select {
		case <-ctx.Done():
		case <-stop:
		}
		_ = s.conn.Close()
	}()
	go l.pinger(s, stop)
	for {
		mt, data, err := s.conn.ReadMessage()
		if err != nil {
			return err
		}
		if mt != websocket.BinaryMessage {
			continue
		}
		var f larkws.Frame
		if err := f.Unmarshal(data); err != nil {
			l.log.Warn("feishu long connection: a frame that is not the SDK's protocol", "err", err)
			continue
		}
		switch larkws.FrameType(f.Method) {
		case larkws.FrameTypeControl:
			l.control(s, f)
		case larkws.FrameTypeData:
			l.data(ctx, s, f)
		}
	}
}

// control takes a pong's client configuration.
func (l *longConn) control(s *session, f larkws.Frame) {
	if larkws.MessageType(larkws.Headers(f.Headers).GetString(larkws.HeaderType)) != larkws.MessageTypePong || len(f.Payload) == 0 {
		return
	}
	var cc larkws.ClientConfig
	if err := json.Unmarshal(f.Payload, &cc); err != nil || cc.PingInterval <= 0 {
		return
	}
	select {
	case <-s.every: // replace a value not taken yet
	default:
	}
	s.every <- time.Duration(cc.PingInterval) * time.Second
}

// data handles an event frame (putting together an event cut into parts)
// in a goroutine that answers it with a response frame. Other data
// frames (card callbacks) are not answered, as with the SDK.
func (l *longConn) data(ctx context.Context, s *session, f larkws.Frame) {
	hs := larkws.Headers(f.Headers)
	if larkws.MessageType(hs.GetString(larkws.HeaderType)) != larkws.MessageTypeEvent {
		return
	}
	id := hs.GetString(larkws.HeaderMessageID)
	payload := f.Payload
	if sum := hs.GetInt(larkws.HeaderSum); sum > 1 {
		if payload = s.combine(id, sum, hs.GetInt(larkws.HeaderSeq), payload); payload == nil {
			return
		}
	}
	l.handlers.Go(func() {
		start := time.Now()
		code := l.handle(ctx, payload)
		hs.Add(larkws.HeaderBizRt, strconv.FormatInt(time.Since(start).Milliseconds(), 10))
		resp, _ := json.Marshal(larkws.NewResponseByCode(code))
		f.Headers, f.Payload = hs, resp
		if err := s.write(&f); err != nil {
			l.log.Warn("feishu long connection: event not answered; Feishu will push it again", "err", err)
		}
	})
}

// combine keeps part seq of sum of event id and returns the whole payload
// once every part is there, else nil.
func (s *session) combine(id string, sum, seq int, part []byte) []byte {
	if seq < 0 || seq >= sum {
		return nil
	}
	parts := s.parts[id]
	if len(parts) != sum {
		parts = make([][]byte, sum)
		s.parts[id] = parts
	}
	parts[seq] = part
	var whole []byte
	for _, p := range parts {
		if p == nil {
			return nil
		}
		whole = append(whole, p...)
	}
	delete(s.parts, id)
	return whole
}

// pinger pings at once and then at the interval the server asks for,
// until stop is closed.
func (l *longConn) pinger(s *session, stop <-chan struct{}) {
	t := time.NewTimer(0)
	defer t.Stop()
	every := s.ping
	for {
		select {
		case <-t.C:
			if err := s.write(larkws.NewPingFrame(s.service)); err != nil {
				return // the reader sees the connection broken
			}
			t.Reset(every)
		case every = <-s.every:
		case <-stop:
			return
		}
	}
}

func (s *session) write(f *larkws.Frame) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.conn.WriteMessage(websocket.BinaryMessage, data)
}
