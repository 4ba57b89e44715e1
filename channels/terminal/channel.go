package terminal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/conversation"
	"github.com/switchboard-dev/switchboard/config"
)

func init() {
	channels.Register(ChannelName, Factory)
	channels.RegisterChecker(ChannelName, Check)
}

// Factory builds the channel from its config section (a channels.Factory).
func Factory(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg, err := DecodeConfig(section)
	if err != nil {
		return nil, err
	}
	return New(cfg, deps)
}

// Channel is the terminal channel. The front end (the command that reads
// the terminal) calls Attach before the host starts it, Say for every
// line, and reads the answers from Conversation.
type Channel struct {
	channels.Base
	book *conversation.Book

	mu       sync.Mutex
	attached bool
	running  bool
}

var (
	_ channels.Channel     = (*Channel)(nil)
	_ channels.AllowLister = (*Channel)(nil)
)

// New returns a terminal channel publishing to deps.Bus.
func New(cfg Config, deps channels.Deps) (*Channel, error) {
	book, err := conversation.Open(ChannelName, conversation.Options{})
	if err != nil {
		return nil, err
	}
	return &Channel{Base: channels.NewBase(ChannelName, cfg.AllowFrom, deps.Bus, deps.Logger), book: book}, nil
}

// Attach tells the channel that a front end reads the terminal; Start
// refuses to run without one.
func (c *Channel) Attach() {
	c.mu.Lock()
	c.attached = true
	c.mu.Unlock()
}

// Start starts the channel; it fails when no front end is attached (a
// config that enables channels.terminal for `switchboard run`).
func (c *Channel) Start(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.attached {
		return errNotAttached
	}
	c.running = true
	return nil
}

// Stop stops the channel: Say refuses from then on.
func (c *Channel) Stop(context.Context) error {
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
	return c.book.Close()
}

// Send keeps an answer of the agent in the conversation, where the front
// end reads it.
func (c *Channel) Send(_ context.Context, msg bus.OutboundMessage) error {
	_, err := c.book.Record(msg)
	return err
}

// Hooks offers the agent loop the conversation's hook (an
// agentloop.HookChannel), which follows the tasks delegated from the
// terminal (see conversation.Book.Hook).
func (c *Channel) Hooks() []agent.Hook { return []agent.Hook{c.book.Hook()} }

// Conversation returns the answers of the agent, by chat.
func (c *Channel) Conversation() *conversation.Book { return c.book }

// ErrStopped is Say's error once the channel stopped (or before it
// started).
var ErrStopped = errors.New("terminal channel not running")

// Say puts a line the person typed on the bus as a message of chat (the
// session "terminal:<chat>") and returns its id: the answer to it names
// it (conversation.Answer.ReplyTo).
func (c *Channel) Say(ctx context.Context, chat, text string) (string, error) {
	c.mu.Lock()
	running := c.running
	c.mu.Unlock()
	if !running {
		return "", ErrStopped
	}
	if strings.TrimSpace(chat) == "" {
		return "", fmt.Errorf("terminal: empty chat id")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("terminal: message id: %w", err)
	}
	msg := bus.InboundMessage{ID: "term_" + id.String(), SenderID: Sender, ChatID: chat, Content: text, Timestamp: time.Now()}
	conversation.Tag(&msg)
	if err := c.HandleMessage(ctx, msg); err != nil {
		return "", err
	}
	return msg.ID, nil
}
