package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // the modules this program links
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

// mychat is a custom chat platform: lines a user types go to the bus
// through Base (which checks allowFrom), and the agent's answers are
// collected for the example to print.
type mychat struct {
	channels.Base
	answers chan string
}

func (t *mychat) Start(context.Context) error { return nil }
func (t *mychat) Stop(context.Context) error  { return nil }
func (t *mychat) Send(_ context.Context, m bus.OutboundMessage) error {
	t.answers <- m.Content
	return nil
}

// Example embeds the public host: a custom channel registered beside the
// mailbox, a config that enables both, and the scripted provider (no key).
func Example() {
	dir, _ := os.MkdirTemp("", "switchboard-example-")
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The wiring: register the channel type, load a config, run the host.
	term := &mychat{answers: make(chan string, 1)}
	channels.Register("mychat", func(_ config.Section, deps channels.Deps) (channels.Channel, error) {
		term.Base = channels.NewBase("mychat", []string{"*"}, deps.Bus, deps.Logger)
		return term, nil
	})
	conf := filepath.Join(dir, "config.json")
	os.WriteFile(conf, fmt.Appendf(nil, `{"agents": {"defaults": {"workspace": %q}},
		"channels": {"mychat": {"enabled": true},
		"mailbox": {"enabled": true, "agentId": "helper", "mailboxesRoot": %q}}}`,
		filepath.Join(dir, "ws"), filepath.Join(dir, "mailboxes")), 0o600)
	cfg, err := config.Load(config.LoadOptions{Path: conf})
	if err != nil {
		panic(err)
	}
	h, err := host.New(cfg, host.Options{})
	if err != nil {
		panic(err)
	}
	if err := h.Start(ctx); err != nil {
		panic(err)
	}
	defer h.Stop()

	// A user types a line; the agent answers in the same chat.
	term.HandleMessage(ctx, bus.InboundMessage{Channel: "mychat", SenderID: "ada", ChatID: "ada", Content: "sort 5 3 9 1"})
	fmt.Println(<-term.answers)
	fmt.Println("mailbox agent:", h.AgentID())
	// Output:
	// 1 3 5 9
	// mailbox agent: helper
}
