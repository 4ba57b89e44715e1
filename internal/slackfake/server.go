package slackfake

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack/slacktest"
	"github.com/switchboard-dev/switchboard/internal/platformfake"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// BotToken and AppToken are the tokens the server accepts (defaults
	// "xoxb-fake-bot" and "xapp-fake-app").
	BotToken, AppToken string
	// BotUserID is the bot's user id (default "U0BOT").
	BotUserID string
	// PingInterval is how often the server pings each Socket Mode
	// connection (default 5 seconds; slack-go's client reconnects when it
	// hears no ping for 30).
	PingInterval time.Duration
}

// Server is a fake Slack. It is safe for concurrent use.
type Server struct {
	opts Options
	st   *slacktest.Server

	mu        platformfake.Monitor // guards what follows; Notify at every record
	messages  []Message
	reactions []Reaction
	files     map[string]File                // by file id
	failures  platformfake.Failures[Failure] // injected, by call name
	seq       int
	conns     []*socketConn // live Socket Mode connections, oldest first
	accepted  int           // Socket Mode connections accepted so far
	opened    int           // apps.connections.open calls answered with a URL
	acks      int           // envelopes acknowledged
}

// New starts a Server; Close stops it.
func New(opts Options) *Server {
	if opts.BotToken == "" {
		opts.BotToken = "xoxb-fake-bot"
	}
	if opts.AppToken == "" {
		opts.AppToken = "xapp-fake-app"
	}
	if opts.BotUserID == "" {
		opts.BotUserID = "U0BOT"
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 5 * time.Second
	}
	s := &Server{opts: opts, files: map[string]File{}}
	s.st = slacktest.NewTestServer(s.routes)
	s.st.Start()
	return s
}

// URL is the Web API's URL, ending in "/": slack.OptionAPIURL, a
// channel's apiUrl.
func (s *Server) URL() string { return s.st.GetAPIURL() }

// BotToken returns the bot token the server accepts.
func (s *Server) BotToken() string { return s.opts.BotToken }

// AppToken returns the app-level token the server accepts.
func (s *Server) AppToken() string { return s.opts.AppToken }

// BotUserID returns the bot's user id.
func (s *Server) BotUserID() string { return s.opts.BotUserID }

// Close closes the Socket Mode connections and stops the server.
func (s *Server) Close() {
	s.DropConnections()
	s.st.Stop()
}

// nextTS returns a new message timestamp, unique on this server and in
// Slack's form ("1750000000.000007").
func (s *Server) nextTS() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("1750000000.%06d", s.seq)
}

// Failure is an answer the server gives instead of the real one (or,
// Succeed, the real one: to fail a later call of a queue).
type Failure struct {
	// Status is the HTTP status (default 200, with ok false and Error).
	Status int
	// Error is the body's error code ("ratelimited", "channel_not_found").
	Error string
	// RetryAfter, when set, is the Retry-After header, in seconds.
	RetryAfter int
	// Needed is the scope a missing_scope error names.
	Needed string
}

// Calls that FailNext can make fail.
const (
	CallAuthTest    = "auth.test"
	CallOpen        = "apps.connections.open"
	CallPostMessage = "chat.postMessage"
	CallReaction    = "reactions" // reactions.add and reactions.remove
	CallFile        = "file"      // the download of a file's url_private
)

// Succeed is the Failure that lets its call succeed, to make the second
// call of a kind fail: FailNext(CallPostMessage, Succeed, Failure{...}).
var Succeed = Failure{Status: -1}

// FailNext makes the next calls of the named kind (CallPostMessage, ...)
// fail with f, one per call, in order.
func (s *Server) FailNext(call string, f ...Failure) {
	s.failures.Add(call, f...)
}

// takeFailure returns the next failure injected for call.
func (s *Server) takeFailure(call string) (Failure, bool) {
	f, ok := s.failures.Take(call)
	return f, ok && f.Status != Succeed.Status
}

// Message is a message the bot posted (chat.postMessage).
type Message struct {
	Channel  string // the channel (or user) it was posted to
	TS       string // its timestamp, given by the server
	ThreadTS string // the thread it was posted in ("" for none)
	Text     string // its text, as posted (mrkdwn, & < > escaped)
}

// Reaction is a reaction the bot added or removed.
type Reaction struct {
	Channel string
	TS      string // the message's timestamp
	Name    string // the emoji's name
	Removed bool   // reactions.remove
}

// Messages returns the messages the bot posted, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.messages)
}

// WaitMessages waits until n posted messages match (nil: any) and returns
// them, or ctx's error.
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

// Reactions returns the reactions added and removed, in order.
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

// token returns the token of a Web API call: the form's token, or the
// Authorization header's bearer token.
func token(r *http.Request) string {
	if t := r.FormValue("token"); t != "" {
		return t
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}
