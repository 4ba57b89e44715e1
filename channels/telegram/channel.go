package telegram

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/channels"
)

func init() {
	channels.Register(ChannelName, Factory)
	channels.RegisterChecker(ChannelName, Check)
}

// Factory builds the channel from its config section (a
// channels.Factory); Check decodes and validates a section as Factory
// does, without connecting (a channels.Checker).
var Factory, Check = channels.Decoded(DecodeConfig, New)

// keyPath is the key path of the section, the prefix of config errors.
const keyPath = "channels." + ChannelName

// Channel is the Telegram channel.
type Channel struct {
	channels.Base
	cfg     Config
	bot     *bot.Bot
	http    *http.Client // the calls to Telegram and the downloads
	poller  *http.Client // getUpdates, which waits up to PollTimeout
	journal string       // the journal's path
	media   string       // the folder of downloaded media
	retry   channels.Retry
	takeMu  sync.Mutex // one update taken at a time, in order
	sent    sentParts  // the parts of long answers Telegram has

	mu        sync.Mutex
	me        *models.User       // the bot, once known
	receiving bool               // updates are taken
	started   bool               // Start succeeded and Stop has not run
	cancel    context.CancelFunc // ends the receiving and the resume
	receive   context.Context    // what cancel ends: bounds the webhook's handling too
	life      context.Context    // ends at Stop: the typing notices
	endLife   context.CancelFunc
	done      sync.WaitGroup // the channel's goroutines
	srv       *http.Server   // the webhook's server
	addr      net.Addr       // where it listens
}

var (
	_ channels.Channel        = (*Channel)(nil)
	_ channels.AllowLister    = (*Channel)(nil)
	_ channels.ReceiveStopper = (*Channel)(nil)
	_ channels.Addresser      = (*Channel)(nil)
	_ channels.Progress       = (*Channel)(nil)
)

// New returns a channel for cfg, publishing to deps.Bus. The journal and
// media folder default to the agent's workspace (deps.Workspace). Nothing
// is sent to Telegram before Start.
func New(cfg Config, deps channels.Deps) (*Channel, error) {
	cfg.Enabled = true // built to run: what a running channel needs is required
	if err := cfg.Validate(keyPath); err != nil {
		return nil, err
	}
	c := &Channel{
		Base:  channels.NewBase(ChannelName, cfg.AllowFrom, deps.Bus, deps.Logger),
		cfg:   cfg,
		retry: channels.Retry{Attempts: 3, Backoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second},
	}
	var err error
	if c.journal, err = deps.Path(keyPath+".journal", cfg.Journal, "telegram-journal.jsonl"); err != nil {
		return nil, err
	}
	if c.media, err = deps.Path(keyPath+".mediaDir", cfg.MediaDir, filepath.Join("media", ChannelName)); err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.Proxy != "" {
		proxy, _ := url.Parse(cfg.Proxy.Reveal()) // Validate parsed it
		transport.Proxy = http.ProxyURL(proxy)
	}
	c.http = &http.Client{Transport: transport, Timeout: 2 * time.Minute} // an upload may be 50 MB
	c.poller = &http.Client{Transport: transport, Timeout: cfg.PollTimeout + 15*time.Second}
	c.bot, err = bot.New(cfg.Token.Reveal(), bot.WithSkipGetMe(), bot.WithServerURL(cfg.baseURL()),
		bot.WithHTTPClient(cfg.PollTimeout, c.http),
		bot.WithErrorsHandler(func(err error) {
			c.Logger().Debug("telegram library", "err", redact(err, cfg.Token.Reveal()))
		}),
		bot.WithDebugHandler(func(string, ...any) {}))
	if err != nil {
		return nil, fmt.Errorf("%s.token: %w", keyPath, err)
	}
	c.UseAllowRule(allowed)
	c.UseProgress(c)
	return c, nil
}

// Start opens the journal, checks the token with getMe (a token Telegram
// refuses is an error naming the key; a network failure is retried in
// the background), and starts receiving: the long poll, or the webhook's
// server and setWebhook. Messages an earlier run took in and did not
// answer are handed over again.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("telegram channel already started")
	}
	j, err := channels.OpenJournal(c.journal)
	if err != nil {
		return fmt.Errorf("%s.journal: %w", keyPath, err)
	}
	c.UseJournal(j)
	if me, err := c.getMe(ctx); err == nil {
		c.me = me
		c.Logger().Info("telegram bot", "username", me.Username, "id", me.ID, "mode", c.cfg.Mode)
	} else if !channels.IsTemporary(err) || ctx.Err() != nil {
		_ = j.Close()
		return err
	} else {
		c.Logger().Warn("telegram not reachable yet; trying again in the background", "err", err)
	}
	run, cancel := context.WithCancel(context.Background())
	c.receive = run
	c.life, c.endLife = context.WithCancel(context.Background())
	c.receiving = true
	if c.cfg.Mode == ModeWebhook {
		err = c.startWebhook(ctx, run)
	} else {
		c.done.Go(func() { c.poll(run) })
	}
	if err != nil {
		c.receiving = false
		cancel()
		c.endLife()
		_ = j.Close()
		return err
	}
	c.started, c.cancel = true, cancel
	c.ResumeIn(run, &c.done)
	return nil
}

// getMe asks Telegram who the bot is, which also proves the token.
func (c *Channel) getMe(ctx context.Context) (*models.User, error) {
	me, err := c.bot.GetMe(ctx)
	return me, c.apiError("getMe", err)
}

// identity returns the bot's user, asking Telegram when it is not known
// yet (Start could not reach it).
func (c *Channel) identity(ctx context.Context) (*models.User, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me != nil {
		return me, nil
	}
	me, err := c.getMe(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.me = me
	c.mu.Unlock()
	return me, nil
}

// StopReceiving stops taking updates: the long poll ends (Telegram keeps
// what comes meanwhile until the next start asks for it) or the webhook
// answers 503 (Telegram posts the update again later). Sends go on.
func (c *Channel) StopReceiving(context.Context) error {
	c.mu.Lock()
	c.receiving = false
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil && c.cfg.Mode == ModePolling {
		cancel()
	}
	return nil
}

// isReceiving reports whether updates are taken.
func (c *Channel) isReceiving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receiving
}

// Stop stops receiving, waits (up to ctx's deadline) for the updates in
// hand to be journaled or left to Telegram, and closes the journal.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	if !c.started {
		c.mu.Unlock()
		return nil
	}
	c.started, c.receiving = false, false
	cancel, srv := c.cancel, c.srv
	c.srv = nil
	c.mu.Unlock()
	var errs []error
	if srv != nil {
		errs = append(errs, srv.Shutdown(ctx))
	}
	cancel()
	c.endLife()
	errs = append(errs, c.Finish(ctx, &c.done, "updates in hand"))
	return errors.Join(errs...)
}

// Address implements channels.Addresser: the webhook's URL once it
// listens; in polling mode, "" (the channel asks Telegram).
func (c *Channel) Address() (what, where string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr == nil {
		return "webhook", ""
	}
	return "webhook", "http://" + c.addr.String() + c.cfg.WebhookPath
}
