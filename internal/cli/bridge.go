package cli

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/bridge"
)

// bridgeNATS is the backend a bridge joins the folder to.
const bridgeNATS = "nats"

func (a *app) bridgeCommand() *cobra.Command {
	var (
		id, natsURL string
		interval    float64
	)
	cmd := &cobra.Command{
		Use:   "bridge [--root DIR] [--nats-url URL] [--id NAME]",
		Short: "Join a mailbox folder and a NATS server into one team",
		Long: `Bridge mirrors agent cards and messages between a mailbox folder (nanobot's
tree: --root, else channels.mailbox.mailboxesRoot) and a NATS server (the
config's channels.mailbox.nats section: url, credentials, TLS, stream and
buckets; --nats-url replaces its url), both ways, until SIGINT/SIGTERM.

Every agent with a card of its own on one side gets a copy of its card on
the other, marked bridged_by NAME, with the status and heartbeat of the
original (it goes offline when its agent does, or when no bridge renews
it). A message sent on one side to an agent that lives on the other is
forwarded there, with its signature intact, and acknowledged on the sending
side only once the other side holds it: nothing is lost when the bridge is
killed, and a message it may have forwarded before is looked for on the
other side first, so none arrives twice. Artifacts named by the messages'
file parts are copied, verified by their hash. What cannot be forwarded (a
loop, a missing or corrupt artifact, a message the other side refuses) is
set aside on the sending side with the reason (switchboard dead).

Several bridges may join the same folder and server: each inbox is read by
one of them at a time. Give each its own --id. Bridges chain: with a bridge
on each machine between its folder and one NATS server, the agents of every
folder and of the server are one team (a copied card is copied onward,
never back toward its agent).`,
		Example: `  switchboard bridge --root ~/.nanobot/mailboxes --nats-url nats://nats-1:4222
  NANOBOT_CHANNELS__MAILBOX__NATS__URL=nats://nats-1:4222 switchboard bridge --id bridge-lab`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if interval <= 0 {
				return usagef("--interval %v: want a number of seconds above 0", interval)
			}
			if id == "" {
				id = defaultBridgeID()
			}
			if err := envelope.ValidateAgentID(id); err != nil {
				return usagef("--id: %v", err)
			}
			return a.bridge(cmd.Context(), id, natsURL, seconds(interval))
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "id", "", "the bridge's name, in the cards and messages it copies (default: bridge-HOST)")
	fl.StringVar(&natsURL, "nats-url", "", "the NATS server(s), comma separated (default: channels.mailbox.nats.url)")
	fl.Float64Var(&interval, "interval", 1, "seconds between two comparisons of the cards")
	a.addLogFlags(cmd, "info")
	return cmd
}

// defaultBridgeID is bridge-<host name>, or bridge when the host's name
// is no valid agent id.
func defaultBridgeID() string {
	host, err := os.Hostname()
	if err == nil {
		if id := "bridge-" + strings.ReplaceAll(host, ".", "-"); envelope.ValidateAgentID(id) == nil {
			return id
		}
	}
	return "bridge"
}

// bridge runs the bridge until ctx ends.
func (a *app) bridge(ctx context.Context, id, natsURL string, interval time.Duration) error {
	folder, s, err := a.openStore()
	if err != nil {
		return err
	}
	logger := a.logger(slog.LevelInfo)
	fs := store.New(folder, logger)
	defer fs.Close()
	cfg := s.mailbox
	cfg.Backend, cfg.AgentID = bridgeNATS, id
	sc := cfg.StoreConfig()
	if natsURL != "" {
		raw := maps.Clone(sc.Section.Raw)
		if raw == nil {
			raw = map[string]any{}
		}
		raw["url"] = natsURL
		sc.Section.Raw = raw
	}
	sc.Logger = logger
	ns, err := store.Open(bridgeNATS, sc)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	defer ns.Close()
	b, err := bridge.New(bridge.Config{ID: id, Interval: interval, OfflineAfter: seconds(cfg.OfflineAfter), Logger: logger,
		A: bridge.Side{Name: "folder", Store: fs}, B: bridge.Side{Name: "nats", Store: ns}})
	if err != nil {
		return err
	}
	logger.Info("bridge running", "id", id, "folder", tilde(s.mailbox.MailboxesRoot), "nats", store.Where(bridgeNATS, sc))
	err = b.Run(ctx)
	fwd, dup, aside, arts := b.Counts()
	logger.Info("bridge stopped", "forwarded", fwd, "duplicates_dropped", dup, "set_aside", aside, "artifacts_copied", arts)
	return err
}
