package channelhost

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Never is the reply of an agent that takes a message and never finishes
// it: a turn that does not end.
const Never = "\x00never"

// Echo answers "echo: " and the message's text.
func Echo(in bus.InboundMessage) string { return "echo: " + in.Content }

// Agent runs a scripted agent on b until ctx ends or b closes: every
// message taken is added to taken (when not nil) and answered with
// reply(in) as the agent loop answers: in the message's chat, with its
// metadata, finished once the answer was sent. A reply "" finishes the
// message unanswered; Never leaves it unfinished.
func Agent(ctx context.Context, b *bus.Bus, taken *testkit.Log[bus.InboundMessage], reply func(bus.InboundMessage) string) {
	for {
		in, err := b.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		if taken != nil {
			taken.Add(in)
		}
		switch text := reply(in); text {
		case Never:
		case "":
			in.Done()
		default:
			_ = b.PublishOutbound(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
				Content: text, Metadata: maps.Clone(in.Metadata),
				Sent: func(err error) {
					if err == nil {
						in.Done()
					}
				}})
		}
	}
}

// Running is a channel run by a Manager in the test's process.
type Running struct {
	Bus     *bus.Bus
	Manager *channels.Manager
}

// Run starts ch on b with a Manager whose retries are quick (logging to
// logger). The test's end stops it and, when the test failed, logs logs
// (the channel's log output).
func Run(t *testing.T, b *bus.Bus, ch channels.Channel, logger *slog.Logger, logs fmt.Stringer) *Running {
	t.Helper()
	r := &Running{Bus: b, Manager: channels.NewManager(b, channels.ManagerConfig{
		RetryBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, Logger: logger})}
	require.NoError(t, r.Manager.Add(ch))
	require.NoError(t, r.Manager.Start(testkit.Ctx(t)))
	t.Cleanup(func() {
		r.Stop()
		if t.Failed() {
			t.Logf("channel logs:\n%s", logs)
		}
	})
	return r
}

// Stop closes the bus and stops the channel (again: harmless).
func (r *Running) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	r.Bus.Close()
	_ = r.Manager.Stop(ctx)
}
