package feishufake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"

	"github.com/switchboard-dev/switchboard/internal/platformfake"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// AppID and AppSecret are the credentials the server accepts
	// (defaults "cli_fake" and "fake-secret").
	AppID, AppSecret string
	// BotOpenID is the bot's own open_id (default "ou_bot").
	BotOpenID string
	// PingInterval is the ping interval, in seconds, the server tells
	// long-connection clients (default 120).
	PingInterval int
	// ReconnectInterval is the reconnect interval, in seconds, it tells
	// them (default 1).
	ReconnectInterval int
	// QuietPongs makes pongs carry no client configuration (Feishu's do):
	// the SDK's own ws.Client writes that configuration without a lock
	// while its ping loop reads it, which the race detector reports.
	QuietPongs bool
}

// Server is a fake Feishu open platform. It is safe for concurrent use.
type Server struct {
	opts Options
	srv  *httptest.Server

	mu        platformfake.Monitor // guards what follows; Notify at every record
	messages  []Message
	reactions []Reaction
	resources map[string]resource            // by message id + "/" + file key
	chats     map[string]string              // message id → chat id, of the events pushed
	uuids     map[string]Message             // the messages sent with a uuid, by uuid
	failures  platformfake.Failures[Failure] // injected, by call name
	dupes     int                            // sends refused as duplicates of a uuid
	seq       int
	conns     []*wsConn // live long connections, oldest first
	accepted  int       // long connections accepted so far
	pings     int
}

// New starts a Server; Close stops it.
func New(opts Options) *Server {
	if opts.AppID == "" {
		opts.AppID = "cli_fake"
	}
	if opts.AppSecret == "" {
		opts.AppSecret = "fake-secret"
	}
	if opts.BotOpenID == "" {
		opts.BotOpenID = "ou_bot"
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 120
	}
	if opts.ReconnectInterval <= 0 {
		opts.ReconnectInterval = 1
	}
	s := &Server{opts: opts, resources: map[string]resource{},
		chats: map[string]string{}, uuids: map[string]Message{}}
	mux := http.NewServeMux()
	s.routes(mux)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the server's base URL: the SDK's base URL (lark.WithOpenBaseUrl,
// ws.WithDomain), a channel's baseUrl.
func (s *Server) URL() string { return s.srv.URL }

// AppID returns the app id the server accepts.
func (s *Server) AppID() string { return s.opts.AppID }

// AppSecret returns the app secret the server accepts.
func (s *Server) AppSecret() string { return s.opts.AppSecret }

// BotOpenID returns the bot's open_id.
func (s *Server) BotOpenID() string { return s.opts.BotOpenID }

// Close closes the long connections and stops the server.
func (s *Server) Close() {
	s.DropConnections()
	s.srv.Close()
}

// Failure is an answer the server gives instead of the real one (or,
// Succeed, the real one: to fail a later call of a queue).
type Failure struct {
	Status int         // HTTP status (default 200)
	Code   int         // the JSON body's code
	Msg    string      // its msg
	Header http.Header // extra response headers (x-ogw-ratelimit-reset, Retry-After)
}

// Calls that FailNext can make fail.
const (
	CallToken    = "token"    // tenant_access_token
	CallBotInfo  = "botinfo"  // GET /open-apis/bot/v3/info
	CallReply    = "reply"    // POST /open-apis/im/v1/messages/:id/reply
	CallCreate   = "create"   // POST /open-apis/im/v1/messages
	CallResource = "resource" // GET /open-apis/im/v1/messages/:id/resources/:key
	CallReaction = "reaction" // POST and DELETE of reactions
	CallEndpoint = "endpoint" // POST /callback/ws/endpoint
)

// Succeed is the Failure that lets its call succeed, to make the second
// call of a kind fail: FailNext(CallReply, Succeed, Failure{...}).
var Succeed = Failure{Status: -1}

// FailNext makes the next calls of the named kind (CallReply, ...) fail
// with f, one per call, in order.
func (s *Server) FailNext(call string, f ...Failure) {
	s.failures.Add(call, f...)
}

// takeFailure returns the next failure injected for call.
func (s *Server) takeFailure(call string) (Failure, bool) {
	f, ok := s.failures.Take(call)
	return f, ok && f.Status != Succeed.Status
}

// Messages returns the messages the bot sent (replies and new messages),
// oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.messages)
}

// WaitMessages waits until n messages that match accepts (nil: any) were
// sent and returns them, or ctx's error.
func (s *Server) WaitMessages(ctx context.Context, n int, match func(Message) bool) ([]Message, error) {
	var got []Message
	err := s.mu.Wait(ctx, func() bool {
		got = got[:0]
		for _, m := range s.messages {
			if match == nil || match(m) {
				got = append(got, m)
			}
		}
		return len(got) >= n
	})
	return got, err
}

// Duplicates returns how many sends were taken as repeats of an earlier
// send with the same uuid (Feishu's deduplication), and not sent again.
func (s *Server) Duplicates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dupes
}

// Reactions returns the reactions added and deleted, in order.
func (s *Server) Reactions() []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reactions)
}

// WaitReactions waits until n recorded reactions match (nil: any).
func (s *Server) WaitReactions(ctx context.Context, n int, match func(Reaction) bool) ([]Reaction, error) {
	var got []Reaction
	err := s.mu.Wait(ctx, func() bool {
		got = got[:0]
		for _, r := range s.reactions {
			if match == nil || match(r) {
				got = append(got, r)
			}
		}
		return len(got) >= n
	})
	return got, err
}

// AddResource makes the file of a message downloadable (an image's
// image_key, a file's file_key).
func (s *Server) AddResource(messageID, fileKey, fileName string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources[messageID+"/"+fileKey] = resource{name: fileName, data: slices.Clone(data)}
}

type resource struct {
	name string
	data []byte
}
