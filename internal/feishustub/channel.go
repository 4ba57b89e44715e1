package feishustub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// ChannelName is the stub's channel name: its messages are the "feishu"
// channel's on the bus.
const ChannelName = "feishu"

// TypeName is the stub's channel type, the name of its config section
// (channels.feishu-stub); "feishu" is the real channel's (channels/feishu).
const TypeName = "feishu-stub"

func init() { channels.Register(TypeName, Factory) }

// Factory builds the stub from its config section.
func Factory(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg, err := DecodeConfig(section)
	if err != nil {
		return nil, err
	}
	if cfg.Journal == "" && deps.Config != nil {
		cfg.Journal = filepath.Join(deps.Config.Agents.Defaults.Workspace, "feishu-journal.jsonl")
	}
	return New(cfg, deps.Bus, deps.Logger)
}

// Channel is the stub Feishu channel.
type Channel struct {
	channels.Base
	cfg        Config
	stopResume context.CancelFunc

	mu     sync.Mutex
	srv    *http.Server
	addr   net.Addr
	out    *outbox
	seen   *seenEvents
	served chan error
}

var (
	_ channels.Addresser   = (*Channel)(nil)
	_ channels.Channel     = (*Channel)(nil)
	_ channels.AllowLister = (*Channel)(nil)
)

// New returns a stub channel for cfg publishing to b. A nil logger discards.
func New(cfg Config, b *bus.Bus, logger *slog.Logger) (*Channel, error) {
	if err := cfg.Validate("channels.feishu"); err != nil {
		return nil, err
	}
	return &Channel{Base: channels.NewBase(ChannelName, cfg.AllowFrom, b, logger), cfg: cfg,
		seen: newSeenEvents(4096)}, nil
}

// Addr returns the webhook's listening address once started (useful with
// listen "127.0.0.1:0").
func (c *Channel) Addr() net.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.addr
}

// Address implements channels.Addresser: the webhook's URL once the
// channel listens, else "".
func (c *Channel) Address() (what, where string) {
	addr := c.Addr()
	if addr == nil {
		return "webhook", ""
	}
	return "webhook", "http://" + addr.String() + c.cfg.WebhookPath
}

// Start opens the outbox file and starts the webhook server.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.srv != nil {
		return errors.New("feishu stub already running")
	}
	path, err := config.ExpandHome(c.cfg.Outbox)
	if err != nil {
		return fmt.Errorf("channels.feishu.outbox: %w", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := mkdirPrivate(dir); err != nil {
			return fmt.Errorf("channels.feishu.outbox: %w", err)
		}
	}
	out, err := openOutbox(path)
	if err != nil {
		return err
	}
	if err := c.openJournal(); err != nil {
		out.close()
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", c.cfg.Listen)
	if err != nil {
		out.close()
		c.closeJournal()
		return fmt.Errorf("channels.feishu.listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+c.cfg.WebhookPath, c.handleEvent)
	mux.HandleFunc("GET /feishu/replies", c.handleReplies)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	c.srv, c.addr, c.out, c.served = srv, ln.Addr(), out, served
	go func() { served <- srv.Serve(ln) }()
	c.Logger().Info("feishu stub listening", "addr", ln.Addr().String(), "path", c.cfg.WebhookPath, "outbox", path)
	resume, cancel := context.WithCancel(context.Background())
	c.stopResume = cancel
	go func() { // what an earlier run took in and did not answer
		if _, err := c.Resume(resume); err != nil && resume.Err() == nil {
			c.Logger().Warn("messages of an earlier run not handed over; they are on the next start", "err", err)
		}
	}()
	return nil
}

// Stop shuts the webhook down (waiting for requests in flight, up to ctx's
// deadline) and closes the outbox.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	srv, out, served, stopResume := c.srv, c.out, c.served, c.stopResume
	c.srv = nil
	c.mu.Unlock()
	if srv == nil {
		return nil
	}
	stopResume()
	err := srv.Shutdown(ctx)
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, out.close(), c.closeJournal())
}

// openJournal opens the journal of channels.feishu.journal, when set, for
// HandleMessage (see channels.Journal).
func (c *Channel) openJournal() error {
	if c.cfg.Journal == "" {
		return nil
	}
	path, err := config.ExpandHome(c.cfg.Journal)
	if err != nil {
		return fmt.Errorf("channels.feishu.journal: %w", err)
	}
	j, err := channels.OpenJournal(path)
	if err != nil {
		return fmt.Errorf("channels.feishu.journal: %w", err)
	}
	c.UseJournal(j)
	return nil
}

// closeJournal closes the journal, if one is open.
func (c *Channel) closeJournal() error {
	if j := c.Journal(); j != nil {
		return j.Close()
	}
	return nil
}

// Send "sends" a reply to a Feishu chat: one line in the outbox file and
// one log line.
func (c *Channel) Send(_ context.Context, msg bus.OutboundMessage) error {
	c.mu.Lock()
	out := c.out
	c.mu.Unlock()
	if out == nil {
		return fmt.Errorf("feishu stub: %w", channels.ErrNotRunning)
	}
	if msg.ChatID == "" {
		return errors.New("feishu stub: reply without a chat id")
	}
	r := Reply{Time: time.Now().UTC(), ChatID: msg.ChatID, Content: msg.Content, ReplyTo: msg.ReplyTo}
	if err := out.append(r); err != nil {
		return err
	}
	attrs := slices.Clip(meta.LogAttrs("", msg.Metadata, msg.TraceContext)) // appended to twice
	c.Logger().Info("feishu reply", append(attrs, "chat_id", msg.ChatID, "reply_to", msg.ReplyTo)...)
	c.Logger().Debug("feishu reply text", append(attrs, "chat_id", msg.ChatID, "content", msg.Content)...) // message text only at debug
	return nil
}
