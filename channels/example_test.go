package channels_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// console is a tiny chat platform: lines "typed" by a user go to the bus
// through Base, and replies are collected in a channel for the example to
// print.
type console struct {
	channels.Base
	replies chan string
}

func (c *console) Start(context.Context) error { return nil }
func (c *console) Stop(context.Context) error  { return nil }
func (c *console) Send(_ context.Context, m bus.OutboundMessage) error {
	c.replies <- m.ChatID + " <- " + m.Content
	return nil
}

// typeLine delivers one line from a user, checked against allowFrom.
func (c *console) typeLine(ctx context.Context, user, text string) error {
	return c.HandleMessage(ctx, bus.InboundMessage{
		Channel: c.Name(), SenderID: user, ChatID: user, Content: text,
	})
}

// Example shows the pieces a host wires together: a bus, a channel, the
// manager that starts it and dispatches outbound messages, and an "agent"
// that answers from the bus.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	b := bus.New(0) // default capacity
	defer b.Close()
	con := &console{
		Base:    channels.NewBase("console", []string{"alice"}, b, nil),
		replies: make(chan string, 1),
	}
	m := channels.NewManager(b, channels.ManagerConfig{})
	if err := m.Add(con); err != nil {
		panic(err)
	}
	if err := m.Start(ctx); err != nil {
		panic(err)
	}
	defer m.Stop(context.Background())

	// The agent: answer every inbound message in the chat it came from.
	go func() {
		for {
			in, err := b.ConsumeInbound(ctx)
			if err != nil {
				return
			}
			_ = b.PublishOutbound(ctx, bus.OutboundMessage{
				Channel: in.Channel, ChatID: in.ChatID, Content: strings.ToUpper(in.Content),
			})
		}
	}()

	fmt.Println(con.typeLine(ctx, "mallory", "let me in"))
	if err := con.typeLine(ctx, "alice", "hello"); err != nil {
		panic(err)
	}
	fmt.Println(<-con.replies)
	// Output:
	// channel "console": sender "mallory": sender not allowed
	// alice <- HELLO
}
