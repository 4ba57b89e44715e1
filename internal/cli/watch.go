package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
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
	return cmd
}

func (a *app) watch(cmd *cobra.Command, agent string, jsonOut bool) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	show := func(where string, msg *envelope.Message, readErr error) error {
		return a.printWatched(where, msg, readErr, jsonOut)
	}
	switch kind := a.backendKind(s); kind {
	case backendFS:
	case natsstore.BackendName:
		return a.watchNATS(cmd.Context(), s, agent, show)
	default:
		return a.fsOnly("watch")
	}
	st, _, err := a.openStore()
	if err != nil {
		return err
	}
	defer st.Close()
	ready := func() { // said once nothing new can be missed
		fmt.Fprintf(a.env.Stderr, "watching %s in %s (Ctrl-C to stop)\n", watched(agent), tilde(st.Root()))
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	var writeErr error
	err = st.WatchReady(ctx, agent, func(name string, msg *envelope.Message) {
		if writeErr != nil {
			return
		}
		var readErr error
		if msg == nil {
			readErr = whyUnreadable(st.Root(), name, s.mailbox.MaxMessageBytes)
		}
		if writeErr = show(name, msg, readErr); writeErr != nil {
			cancel() // stdout is gone: stop watching
		}
	}, ready)
	if writeErr != nil {
		return writeErr
	}
	if err != nil && !stopped(cmd.Context(), err) {
		return err
	}
	return nil
}

// watched names what watch follows: "every inbox", or "coder's inbox".
func watched(agent string) string {
	if agent == "" {
		return "every inbox"
	}
	return agent + "'s inbox"
}

// whyUnreadable says why the message file at rel (under root), which the
// store could not read, cannot be read: the file may have been set aside
// by its receiver meanwhile.
func whyUnreadable(root, rel string, maxBytes int64) error {
	_, err := readMessageFile(filepath.Join(root, rel), maxBytes)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return errors.New("cannot be read (set aside by its receiver)")
	}
	return err
}
