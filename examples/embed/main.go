package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // modules this program links
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

type stdio struct{ channels.Base }

func (s *stdio) Start(context.Context) error { return nil }
func (s *stdio) Stop(context.Context) error  { return nil }
func (s *stdio) Send(_ context.Context, m bus.OutboundMessage) error {
	_, err := fmt.Println(m.Content)
	return err
}

func main() {
	ch := &stdio{}
	channels.Register("stdio", func(_ config.Section, d channels.Deps) (channels.Channel, error) {
		ch.Base = channels.NewBase("stdio", []string{"*"}, d.Bus, d.Logger)
		return ch, nil
	})
	cfg, err := host.LoadConfig("") // ~/.nanobot/config.json and NANOBOT_ variables
	if err != nil {
		log.Fatal(err)
	}
	h, err := host.New(cfg, host.Options{})
	if err == nil {
		err = h.Start(context.Background())
	}
	if err != nil {
		log.Fatal(err)
	}
	defer h.Stop() // graceful: what was typed is answered first
	for in := bufio.NewScanner(os.Stdin); in.Scan(); {
		ch.HandleMessage(context.Background(), bus.InboundMessage{Channel: "stdio", SenderID: "me", ChatID: "me", Content: in.Text()})
	}
}
