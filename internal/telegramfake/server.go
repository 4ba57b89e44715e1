package telegramfake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/platformfake"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// BotID and BotUsername are the bot's (defaults 7000001 and
	// "fake_bot"); the token is "<BotID>:<Secret>".
	BotID       int64
	BotUsername string
	// Secret is the part of the token after the colon (default
	// "fake-secret-0123456789abcdef").
	Secret string
}

// Server is a fake Telegram Bot API server. It is safe for concurrent use.
type Server struct {
	opts Options
	srv  *httptest.Server

	mu        platformfake.Monitor // guards what follows; Notify at every record
	updates   []update             // every update pushed, by id
	confirmed int64                // updates below this id are confirmed: never returned again
	nextID    int64                // the next update id
	polls     int                  // getUpdates calls answered
	webhook   Webhook
	messages  []Message
	actions   []ChatAction
	reactions []Reaction
	files     map[string]file                // by file_id
	chats     map[int64][]int                // the message ids of each chat
	blocked   map[int64]bool                 // chats whose user blocked the bot
	failures  platformfake.Failures[Failure] // injected, by method
	calls     map[string]int                 // calls answered, by method
	msgSeq    int
}

// New starts a Server; Close stops it.
func New(opts Options) *Server {
	if opts.BotID == 0 {
		opts.BotID = 7000001
	}
	if opts.BotUsername == "" {
		opts.BotUsername = "fake_bot"
	}
	if opts.Secret == "" {
		opts.Secret = "fake-secret-0123456789abcdef"
	}
	s := &Server{opts: opts, nextID: 100, files: map[string]file{},
		chats: map[int64][]int{}, blocked: map[int64]bool{}, calls: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.route))
	return s
}

// route sends /bot<token>/<method> to serveMethod and
// /file/bot<token>/<path> to serveFile: the token is part of a path
// element, which ServeMux's patterns cannot match.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok && r.Method == http.MethodGet {
		token, path, _ := strings.Cut(rest, "/")
		r.SetPathValue("token", token)
		r.SetPathValue("path", path)
		s.serveFile(w, r)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/bot"); ok {
		token, method, _ := strings.Cut(rest, "/")
		r.SetPathValue("token", token)
		r.SetPathValue("method", method)
		s.serveMethod(w, r)
		return
	}
	http.NotFound(w, r)
}

// URL is the server's base URL: a library's server URL
// (bot.WithServerURL), a channel's baseUrl.
func (s *Server) URL() string { return s.srv.URL }

// Token returns the bot token the server accepts.
func (s *Server) Token() string { return strconv.FormatInt(s.opts.BotID, 10) + ":" + s.opts.Secret }

// BotID returns the bot's user id.
func (s *Server) BotID() int64 { return s.opts.BotID }

// BotUsername returns the bot's username (without "@").
func (s *Server) BotUsername() string { return s.opts.BotUsername }

// Close stops the server; long polls in progress end.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Failure is an error answer the server gives instead of the real one
// (or, Succeed, the real one: to fail a later call of a queue).
type Failure struct {
	// Code is the HTTP status and the body's error_code (default 500).
	Code int
	// Description is the body's description (default: Telegram's words
	// for the code).
	Description string
	// RetryAfter, with Code 429, is parameters.retry_after, in seconds.
	RetryAfter int
	// MigrateTo, with Code 400, is parameters.migrate_to_chat_id: the
	// group became a supergroup with this id.
	MigrateTo int64
}

// Succeed is the Failure that lets its call succeed, to make the second
// call of a method fail: FailNext("sendMessage", Succeed, Failure{...}).
var Succeed = Failure{Code: -1}

// FailNext makes the next calls of the method ("sendMessage",
// "getUpdates", ...) fail with f, one per call, in order.
func (s *Server) FailNext(method string, f ...Failure) {
	s.failures.Add(method, f...)
}

// takeFailure returns the next failure injected for method.
func (s *Server) takeFailure(method string) (Failure, bool) {
	f, ok := s.failures.Take(method)
	return f, ok && f.Code != Succeed.Code
}

// Calls returns how many calls of method the server answered (failures
// and refusals included).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// WaitCalls waits until the server answered n calls of method.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) error {
	return s.mu.Wait(ctx, func() bool { return s.calls[method] >= n })
}

// Block makes the chat's user have blocked the bot: sends to it get
// Telegram's 403.
func (s *Server) Block(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[chatID] = true
}

// Messages returns the messages the bot sent, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.messages)
}

// WaitMessages waits until n messages that match (nil: any) were sent and
// returns them, or ctx's error.
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

// ChatAction is a chat action the bot sent ("typing").
type ChatAction struct {
	ChatID   int64
	ThreadID int
	Action   string
}

// ChatActions returns the chat actions the bot sent, oldest first.
func (s *Server) ChatActions() []ChatAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.actions)
}

// WaitChatActions waits until n chat actions that match (nil: any) were
// sent.
func (s *Server) WaitChatActions(ctx context.Context, n int, match func(ChatAction) bool) error {
	return s.mu.Wait(ctx, func() bool {
		c := 0
		for _, a := range s.actions {
			if match == nil || match(a) {
				c++
			}
		}
		return c >= n
	})
}

// Reaction is a setMessageReaction call: the emoji set on a message, or
// none (Emoji "") when the bot took its reaction back.
type Reaction struct {
	ChatID    int64
	MessageID int
	Emoji     string
}

// Reactions returns the reactions the bot set, oldest first.
func (s *Server) Reactions() []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reactions)
}

// WaitReactions waits until n reactions that match (nil: any) were set.
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

// Webhook is the webhook set with setWebhook (URL "" when none is).
type Webhook struct {
	URL            string
	SecretToken    string
	MaxConnections int
	AllowedUpdates []string
}

// Webhook returns the webhook set.
func (s *Server) Webhook() Webhook {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook
}

// WaitWebhook waits until the webhook set matches.
func (s *Server) WaitWebhook(ctx context.Context, match func(Webhook) bool) error {
	return s.mu.Wait(ctx, func() bool { return match(s.webhook) })
}
