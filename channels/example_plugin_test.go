package channels_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// pipeConfig is the config section of the example channel, channels.pipe.
// The channel owns it: it decodes it and says which key is wrong.
type pipeConfig struct {
	Enabled   bool     `json:"enabled"`
	AllowFrom []string `json:"allowFrom"`
	Limit     int      `json:"limit"`   // the longest message the platform takes, in runes
	Journal   string   `json:"journal"` // where messages wait until they are answered
}

// pipeEvent is what the example's "platform" delivers: a message, and
// where to tell it whether the message was taken.
type pipeEvent struct {
	id, user, text string
	taken          chan error
}

// pipe is the smallest complete channel: its platform is two Go channels.
type pipe struct {
	channels.Base
	cfg  pipeConfig
	in   chan pipeEvent // what the platform delivers
	out  chan string    // what the platform shows its users
	stop chan struct{}
	done chan struct{}
}

// newPipe is the channel's Factory: it decodes its section (errors name
// the key) and builds the channel on Base.
func newPipe(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg := pipeConfig{Limit: 4096}
	if err := section.Decode(&cfg); err != nil {
		return nil, err
	}
	if cfg.Limit < 1 {
		return nil, &config.KeyError{Path: section.Path + ".limit", Msg: "want 1 or more", Err: config.ErrInvalidValue}
	}
	return &pipe{Base: channels.NewBase("pipe", cfg.AllowFrom, deps.Bus, deps.Logger), cfg: cfg,
		in: make(chan pipeEvent), out: make(chan string, 8), stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Start opens the journal, takes events in, and hands over again what an
// earlier run took in and did not answer.
func (p *pipe) Start(context.Context) error {
	j, err := channels.OpenJournal(p.cfg.Journal)
	if err != nil {
		return fmt.Errorf("channels.pipe.journal: %w", err)
	}
	p.UseJournal(j)
	go p.receive()
	go func() { _, _ = p.Resume(context.Background()) }()
	return nil
}

// receive tells the platform an event was taken only once HandleMessage
// journaled it: a crash after that loses nothing, and a repeat of the
// event (same id) is taken without being handed over twice.
func (p *pipe) receive() {
	defer close(p.done)
	for {
		select {
		case ev := <-p.in:
			ev.taken <- p.HandleMessage(context.Background(), bus.InboundMessage{
				ID: ev.id, SenderID: ev.user, ChatID: ev.user, Content: ev.text})
		case <-p.stop:
			return
		}
	}
}

func (p *pipe) Stop(context.Context) error {
	close(p.stop)
	<-p.done
	return p.Journal().Close()
}

// Send splits what is too long for the platform. An error marked
// channels.Temporary is retried by the Manager.
func (p *pipe) Send(ctx context.Context, m bus.OutboundMessage) error {
	for _, part := range channels.Split(m.Content, p.cfg.Limit) {
		select {
		case p.out <- m.ChatID + ": " + part:
		case <-ctx.Done():
			return channels.Temporary(ctx.Err())
		}
	}
	return nil
}

// deliver is the platform delivering a message and hearing back.
func (p *pipe) deliver(id, user, text string) error {
	ev := pipeEvent{id: id, user: user, text: text, taken: make(chan error, 1)}
	p.in <- ev
	return <-ev.taken
}

// Example_plugin is a channel plugin end to end: registered by type name,
// built from its config section by the Manager, journaled, deduplicated,
// its answers split at the platform's limit.
func Example_plugin() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "pipe")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	// A channel package registers its type in init, in the default
	// registry: func init() { channels.Register("pipe", newPipe) }.
	reg := channels.NewRegistry()
	reg.Register("pipe", newPipe)

	cfg := config.Default() // as config.Load reads ~/.nanobot/config.json
	cfg.Channels = map[string]config.Section{"pipe": {Path: "channels.pipe", Raw: map[string]any{
		"enabled": true, "allowFrom": []any{"ada"}, "limit": 12, "journal": filepath.Join(dir, "pipe.jsonl")}}}
	b := bus.New(0)
	defer b.Close()
	m := channels.NewManager(b, channels.ManagerConfig{})
	if err := m.Build(reg, cfg); err != nil {
		panic(err)
	}
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Stop(context.Background())
	ch, _ := m.Channel("pipe")
	p := ch.(*pipe)

	// The agent answers in the chat of the message, and finishes the
	// message once its answer was sent (as the agent loop does).
	go func() {
		for {
			in, err := b.ConsumeInbound(ctx)
			if err != nil {
				return
			}
			_ = b.PublishOutbound(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
				Content: "you said: " + strings.ToUpper(in.Content),
				Sent: func(err error) {
					if err == nil {
						in.Done()
					}
				}})
		}
	}()

	fmt.Println(p.deliver("m1", "ada", "hello"))
	fmt.Println(<-p.out)
	fmt.Println(<-p.out)
	fmt.Println(p.deliver("m1", "ada", "hello")) // the platform's retry: taken, not answered again
	fmt.Println(p.deliver("m2", "eve", "hi"))
	fmt.Println(p.deliver("m3", "ada", "bye"))
	fmt.Println(<-p.out)
	// Output:
	// <nil>
	// ada: you said:
	// ada: HELLO
	// <nil>
	// channel "pipe": sender "eve": sender not allowed
	// <nil>
	// ada: you said:
}
