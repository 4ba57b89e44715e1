package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

func (a *app) watchCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "watch [AGENT] [--json]",
		Short: "Follow new messages as they arrive, without claiming them",
		Long: `Watch prints each message as it arrives in AGENT's inbox (every agent's
when AGENT is left out), until SIGINT or SIGTERM. It only reads: the
messages stay in the inbox for their receiver.

On NATS (channels.mailbox.backend "nats") it subscribes to the inbox
subjects and shows each message as it is published; the credentials must
allow subscribing to them. --root names a mailbox folder instead.`,
		Example: `  switchboard watch
  switchboard watch coder --json`,
		Args:              maxArgs("agent"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			agent := ""
			if len(args) == 1 {
				if err := envelope.ValidateAgentID(args[0]); err != nil {
					return asUsage(err)
				}
				agent = args[0]
			}
			return a.watch(cmd, agent, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	a.addLogFlags(cmd, "warn")
	return cmd
}

func (a *app) watch(cmd *cobra.Command, agent string, jsonOut bool) error {
	m, err := a.openWatched()
	if err != nil {
		return err
	}
	defer m.close()
	if !m.be.Has(store.CanWatch) {
		return m.lacks("watch", "cannot follow new messages")
	}
	who, done := a.watchSenders(cmd.Context(), m)
	defer done()
	err = m.be.Watch(cmd.Context(), agent, store.WatchFuncs{
		Arrived: func(got store.Watched) error {
			return a.printWatched(got.Ref, got.Message, got.Err, jsonOut, who)
		},
		Ready: func() { // said once nothing new can be missed
			fmt.Fprintf(a.env.Stderr, "watching %s %s (Ctrl-C to stop)\n", watched(agent), m.at())
		},
		Notice: func(line string) { fmt.Fprintf(a.env.Stderr, "switchboard: %s\n", oneLine(line)) },
	})
	if err != nil && !stopped(cmd.Context(), err) {
		return err
	}
	return nil
}

// openWatched opens the store watch follows: read-only and for watching
// only (store.Config.WatchOnly), so that a broker's mailbox whose stream
// does not exist yet is watched without being created. Where no store
// exists and the backend cannot watch without one (a missing mailbox
// root), it is opened as a sender would open it, creating the root (mode
// 0700) so that it can be followed, as the first agent to start would.
func (a *app) openWatched() (*mailboxStore, error) {
	m, _, err := a.openMailboxWith(true, func(c *store.Config) { c.WatchOnly = true })
	if err != nil || m.be != nil {
		return m, err
	}
	m, _, err = a.openMailbox(false)
	return m, err
}

// watched names what watch follows: "every inbox", or "coder's inbox".
func watched(agent string) string {
	if agent == "" {
		return "every inbox"
	}
	return agent + "'s inbox"
}

// printWatched prints one message watch saw: a message line with --json,
// else "TIME FROM → TO [TYPE] TEXT" (FROM followed by "(unverified)"
// unless who finds it signed by the key pinned for it), or "TIME
// unreadable WHERE: REASON".
func (a *app) printWatched(where string, msg *envelope.Message, readErr error, jsonOut bool, who *senders) error {
	var res keys.Result
	if msg != nil {
		res = who.check(msg)
	}
	if jsonOut {
		return writeJSON(a.env.Stdout, newMessageLine(where, msg, readErr).checked(res))
	}
	if msg == nil {
		_, err := fmt.Fprintf(a.env.Stdout, "%s unreadable %s\n", time.Now().Format(time.TimeOnly),
			safeText(fmt.Sprintf("%s: %v", where, readErr)))
		return err
	}
	line := msg.Timestamp.Local().Format(time.TimeOnly) + " " + who.from(msg, res) + " → " + msg.To
	if msg.Type != envelope.TypeMessage {
		line += " [" + kindLabel(msg.Type, msg.Task) + "]"
	}
	_, err := fmt.Fprintln(a.env.Stdout, safeText(strings.TrimSpace(line+" "+envelope.OneLine(msg.Content.Parts))))
	return err
}
