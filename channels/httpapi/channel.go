package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/conversation"
)

func init() {
	channels.Register(ChannelName, Factory)
	channels.RegisterChecker(ChannelName, Check)
}

// Factory builds the channel from its config section (a
// channels.Factory); Check decodes and validates a section as Factory
// does, without connecting (a channels.Checker).
var Factory, Check = channels.Decoded(DecodeConfig, New)

// Channel is the HTTP channel.
type Channel struct {
	channels.Base
	cfg     Config
	model   string
	journal string // the journal's path
	answers string // the answer file's path

	mu        sync.Mutex
	book      *conversation.Book // nil until Start
	receiving bool               // posts are taken
	srv       *http.Server
	addr      net.Addr
	cancel    context.CancelFunc // ends the requests in progress (long polls, streams)
	done      sync.WaitGroup     // the server and the resume
}

var (
	_ channels.Channel        = (*Channel)(nil)
	_ channels.AllowLister    = (*Channel)(nil)
	_ channels.ReceiveStopper = (*Channel)(nil)
	_ channels.Addresser      = (*Channel)(nil)
)

// New returns a channel for cfg, publishing to deps.Bus. The journal and
// the answer file default to the agent's workspace (deps.Workspace).
func New(cfg Config, deps channels.Deps) (*Channel, error) {
	cfg.Enabled = true
	if err := cfg.Validate(keyPath); err != nil {
		return nil, err
	}
	c := &Channel{Base: channels.NewBase(ChannelName, cfg.AllowFrom, deps.Bus, deps.Logger), cfg: cfg, model: modelOf(cfg, deps)}
	var err error
	if c.journal, err = deps.Path(keyPath+".journal", cfg.Journal, "http-journal.jsonl"); err != nil {
		return nil, err
	}
	if c.answers, err = deps.Path(keyPath+".answers", cfg.Answers, "http-answers.jsonl"); err != nil {
		return nil, err
	}
	return c, nil
}

// modelOf is the model id the channel answers as: the configured one, else
// the agent's id in the mailbox, else "switchboard".
func modelOf(cfg Config, deps channels.Deps) string {
	if cfg.Model != "" {
		return cfg.Model
	}
	if deps.Config != nil {
		if sec, ok := deps.Config.Section("mailbox"); ok && sec.Enabled() {
			if id, ok := sec.Raw["agentId"].(string); ok && id != "" {
				return id
			}
		}
	}
	return "switchboard"
}

// Start opens the journal and the answers, listens on cfg.Listen, and
// hands over again what an earlier run took in and did not answer.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv != nil {
		return errors.New("http channel already started")
	}
	j, err := channels.OpenJournal(c.journal)
	if err != nil {
		return fmt.Errorf("%s.journal: %w", keyPath, err)
	}
	book, err := conversation.Open(ChannelName, conversation.Options{Path: c.answers})
	if err != nil {
		_ = j.Close()
		return fmt.Errorf("%s.answers: %w", keyPath, err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", c.cfg.Listen)
	if err != nil {
		_ = j.Close()
		_ = book.Close()
		return fmt.Errorf("%s.listen: %w", keyPath, err)
	}
	c.UseJournal(j)
	run, cancel := context.WithCancel(context.Background())
	c.book, c.cancel, c.addr, c.receiving = book, cancel, ln.Addr(), true
	c.srv = &http.Server{Handler: c.routes(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return run }}
	srv := c.srv
	c.done.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.Logger().Error("http channel server stopped", "err", err)
		}
	})
	c.ResumeIn(run, &c.done)
	c.Logger().Info("http channel listening", "addr", ln.Addr().String())
	return nil
}

// StopReceiving stops taking messages: a post is answered 503 (post it
// again later, with the same Idempotency-Key). Answers can still be read.
func (c *Channel) StopReceiving(context.Context) error {
	c.mu.Lock()
	c.receiving = false
	c.mu.Unlock()
	return nil
}

// isReceiving reports whether posts are taken.
func (c *Channel) isReceiving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receiving
}

// Stop ends the requests in progress (a long poll returns what it has, a
// stream ends), stops the server within ctx's deadline, and closes the
// journal and the answers.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	srv, cancel, book := c.srv, c.cancel, c.book
	c.srv, c.receiving = nil, false
	c.mu.Unlock()
	if srv == nil {
		return nil
	}
	cancel()
	errs := []error{srv.Shutdown(ctx)}
	errs = append(errs, c.Finish(ctx, &c.done, "requests in progress"))
	errs = append(errs, book.Close())
	return errors.Join(errs...)
}

// Send keeps an answer in its session, synced to the answer file, where
// readers find it.
func (c *Channel) Send(_ context.Context, msg bus.OutboundMessage) error {
	book := c.conversation()
	if book == nil {
		return channels.ErrNotRunning
	}
	_, err := book.Record(msg)
	return err
}

// conversation returns the book of the sessions (nil before Start).
func (c *Channel) conversation() *conversation.Book {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.book
}

// hook is the Hooks' hook: it follows the turns of the channel's
// sessions once the book is open (the loop is built before Start).
type hook struct{ c *Channel }

// Hooks offers the agent loop the hook that follows the tasks delegated
// from the sessions (an agentloop.HookChannel; see
// conversation.Book.Hook).
func (c *Channel) Hooks() []agent.Hook { return []agent.Hook{hook{c}} }

// Turn implements agent.Hook.
func (h hook) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	if b := h.c.conversation(); b != nil {
		return b.Hook().Turn(ctx, t)
	}
	return ctx, func(error, agent.Usage) {}
}

// Chat implements agent.Hook.
func (h hook) Chat(ctx context.Context, t *agent.Turn, req *agent.Request) (context.Context, func(*agent.Response, error), error) {
	if b := h.c.conversation(); b != nil {
		return b.Hook().Chat(ctx, t, req)
	}
	return ctx, func(*agent.Response, error) {}, nil
}

// Tool implements agent.Hook.
func (h hook) Tool(ctx context.Context, t *agent.Turn, call agent.ToolCall) (context.Context, func(string, bool)) {
	if b := h.c.conversation(); b != nil {
		return b.Hook().Tool(ctx, t, call)
	}
	return ctx, func(string, bool) {}
}

// Address implements channels.Addresser: the base URL once listening.
func (c *Channel) Address() (what, where string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr == nil {
		return "http", ""
	}
	return "http", "http://" + c.addr.String()
}
