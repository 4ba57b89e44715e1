package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

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

// Channel is the Slack channel.
type Channel struct {
	channels.Base
	cfg      Config
	api      *slack.Client // the Web API, with the bot token (and the app token for Socket Mode)
	journal  string        // the journal's path
	media    string        // the folder of downloaded files
	retry    channels.Retry
	inFlight keylock.Set // one handling of a message at a time
	posted   postedLog   // parts of answers posted by a send that failed later

	// botUserID is the bot's user id ("" when unknown), set by Start
	// before the socket runs.
	botUserID string
	receiving atomic.Bool // events are taken

	mu      sync.Mutex
	started bool               // Start succeeded and Stop has not run
	cancel  context.CancelFunc // ends the socket and the resume
	done    sync.WaitGroup     // the socket's goroutines and the resume
}

var (
	_ channels.Channel        = (*Channel)(nil)
	_ channels.AllowLister    = (*Channel)(nil)
	_ channels.ReceiveStopper = (*Channel)(nil)
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
		retry: channels.Retry{Attempts: 3, Backoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second},
	}
	var err error
	if c.journal, err = deps.Path(keyPath+".journal", cfg.Journal, "slack-journal.jsonl"); err != nil {
		return nil, err
	}
	if c.media, err = deps.Path(keyPath+".mediaDir", cfg.MediaDir, filepath.Join("media", ChannelName)); err != nil {
		return nil, err
	}
	c.api = slack.New(cfg.BotToken.Reveal(),
		slack.OptionAPIURL(cfg.apiURL()),
		slack.OptionAppLevelToken(cfg.AppToken.Reveal()),
		slack.OptionHTTPClient(&http.Client{Timeout: 60 * time.Second}),
		slack.OptionLog(sdkLogger{c.Logger()}),
	)
	if cfg.ReactEmoji != "" || cfg.DoneEmoji != "" {
		c.UseProgress(c)
	}
	return c, nil
}

// Start opens the journal, checks the bot token (auth.test), and connects
// Socket Mode with the app token; it returns once connected. A token Slack
// refuses is an error naming its key; a network failure or a server error
// is logged, and Socket Mode keeps trying in the background. Messages an
// earlier run took in and did not answer are handed over again.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("slack channel already started")
	}
	j, err := channels.OpenJournal(c.journal)
	if err != nil {
		return fmt.Errorf("%s.journal: %w", keyPath, err)
	}
	c.UseJournal(j)
	if err := c.checkBotToken(ctx); err != nil {
		_ = j.Close()
		return err
	}
	c.logPolicy()
	run, cancel := context.WithCancel(context.Background())
	c.receiving.Store(true)
	client := socketmode.New(c.api, socketmode.OptionLog(sdkLogger{c.Logger()}))
	first := make(chan outcome, 1)
	c.done.Go(func() { c.runSocket(run, client, first) })
	var o outcome
	select {
	case o = <-first:
	case <-ctx.Done():
		o = outcome{err: fmt.Errorf("slack socket mode: not connected: %w", ctx.Err()), fatal: true}
	}
	if o.fatal {
		c.receiving.Store(false)
		cancel()
		c.done.Wait()
		_ = j.Close()
		return o.err
	}
	if o.err != nil {
		c.Logger().Warn("slack socket mode not connected yet; trying again in the background", "err", o.err)
	}
	c.started, c.cancel = true, cancel
	c.ResumeIn(run, &c.done)
	return nil
}

// StopReceiving stops taking events: the Socket Mode connection is
// closed, and Slack delivers what comes meanwhile again once a connection
// is back. Sends go on.
func (c *Channel) StopReceiving(context.Context) error {
	c.receiving.Store(false)
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// Stop stops receiving, waits (up to ctx's deadline) for the events in
// hand to be journaled or left unacknowledged, and closes the journal.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	if !c.started {
		c.mu.Unlock()
		return nil
	}
	c.started = false
	c.receiving.Store(false)
	cancel := c.cancel
	c.mu.Unlock()
	cancel()
	return c.Finish(ctx, &c.done, "events in hand")
}
