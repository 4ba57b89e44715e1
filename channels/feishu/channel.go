package feishu

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	lark "github.com/larksuite/oapi-sdk-go/v3"
	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/internal/keylock"
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

// Channel is the Feishu channel.
type Channel struct {
	channels.Base
	cfg      Config
	client   *lark.Client
	events   *dispatcher.EventDispatcher
	http     *http.Client
	journal  string // the journal's path
	media    string // the folder of downloaded media
	retry    channels.Retry
	inFlight keylock.Set // one handling of a message id at a time

	mu        sync.Mutex
	botOpenID string             // "" until known
	receiving bool               // events are taken
	started   bool               // Start succeeded and Stop has not run
	cancel    context.CancelFunc // ends the receiver and the resume
	done      sync.WaitGroup     // the receiver's goroutines
	srv       *http.Server       // the webhook's server
	addr      net.Addr           // where it listens
}

var (
	_ channels.Channel        = (*Channel)(nil)
	_ channels.AllowLister    = (*Channel)(nil)
	_ channels.ReceiveStopper = (*Channel)(nil)
	_ channels.Addresser      = (*Channel)(nil)
	_ channels.Progress       = (*Channel)(nil)
)

// New returns a channel for cfg, publishing to deps.Bus. The journal and
// media folder default to the agent's workspace (deps.Workspace).
func New(cfg Config, deps channels.Deps) (*Channel, error) {
	cfg.Enabled = true // built to run: what a running channel needs is required
	if err := cfg.Validate(keyPath); err != nil {
		return nil, err
	}
	c := &Channel{
		Base:  channels.NewBase(ChannelName, cfg.AllowFrom, deps.Bus, deps.Logger),
		cfg:   cfg,
		http:  &http.Client{Timeout: 60 * time.Second},
		retry: channels.Retry{Attempts: 3, Backoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second},
	}
	var err error
	if c.journal, err = deps.Path(keyPath+".journal", cfg.Journal, "feishu-journal.jsonl"); err != nil {
		return nil, err
	}
	if c.media, err = deps.Path(keyPath+".mediaDir", cfg.MediaDir, filepath.Join("media", ChannelName)); err != nil {
		return nil, err
	}
	c.client = lark.NewClient(cfg.AppID, cfg.AppSecret.Reveal(),
		lark.WithOpenBaseUrl(cfg.baseURL()),
		lark.WithHttpClient(c.http),
		lark.WithLogger(sdkLogger{c.Logger()}),
		lark.WithLogLevel(larkcore.LogLevelDebug), // sdkLogger decides what is shown
		lark.WithReqTimeout(30*time.Second),
	)
	c.events = dispatcher.NewEventDispatcher(cfg.VerificationToken.Reveal(), cfg.EncryptKey.Reveal()).
		OnP2MessageReceiveV1(c.onMessage)
	c.events.InitConfig(func(conf *larkcore.Config) { conf.Logger = sdkLogger{c.Logger()} })
	c.UseProgress(c)
	return c, nil
}

// Start opens the journal, checks the app's credentials (an error names
// the key to fix), and starts receiving: it connects the long connection
// (a network failure is retried in the background) or starts the webhook
// server. Messages an earlier run took in and did not answer are handed
// over again.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("feishu channel already started")
	}
	j, err := channels.OpenJournal(c.journal)
	if err != nil {
		return fmt.Errorf("%s.journal: %w", keyPath, err)
	}
	c.UseJournal(j)
	if err := c.fetchBotInfo(ctx); err != nil {
		_ = j.Close()
		return err
	}
	run, cancel := context.WithCancel(context.Background())
	c.receiving = true
	if c.cfg.Mode == ModeWebhook {
		err = c.startWebhook(ctx)
	} else {
		err = c.startLongConn(ctx, run)
	}
	if err != nil {
		c.receiving = false
		cancel()
		_ = j.Close()
		return err
	}
	c.started, c.cancel = true, cancel
	c.ResumeIn(run, &c.done)
	return nil
}

// StopReceiving stops taking events: the long connection is closed (Feishu
// pushes what comes meanwhile again once a connection is back) or the
// webhook answers 503 (Feishu retries). Sends go on.
func (c *Channel) StopReceiving(context.Context) error {
	c.mu.Lock()
	c.receiving = false
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil && c.cfg.Mode == ModeWebSocket {
		cancel()
	}
	return nil
}

// isReceiving reports whether events are taken.
func (c *Channel) isReceiving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.receiving
}

// Stop stops receiving, waits (up to ctx's deadline) for the events in
// hand to be journaled or refused, and closes the journal.
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
	errs = append(errs, c.Finish(ctx, &c.done, "events in hand"))
	return errors.Join(errs...)
}

// Address implements channels.Addresser: the webhook's URL once it
// listens; in websocket mode, "" (the channel dials out).
func (c *Channel) Address() (what, where string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr == nil {
		return "webhook", ""
	}
	return "webhook", "http://" + c.addr.String() + c.cfg.WebhookPath
}
