package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

func (a *app) agentsTrustCommand() *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:   "trust ID [--key U...]",
		Short: "Pin the key an agent's card names now (accept a key rotation)",
		Long: `Trust pins the signing key that agent ID's card names now as the key its
messages must be signed with, replacing the key pinned before: what an
operator does when an agent's key changed on purpose (a new machine, a lost
state folder, new NATS credentials). Until then the receivers set aside
every message signed with the new key, as unverified, with the reason.

--key names the key expected (as the card shows it: switchboard agents
--json, public_key): nothing is trusted when the card names another, so
that a card rewritten meanwhile is not trusted by mistake.

The pin is a state record of the agent in the configured store (the folder:
<root>/<agent>/state/pin.json; NATS: the key <agent>.pin of the state
bucket); receivers read it again within 10 seconds, or at once when a
message is signed with a key they do not have pinned. The change is
recorded in the audit log (switchboard log --kind key). See
docs/security.md.`,
		Example: `  switchboard agents trust coder
  switchboard agents trust coder --key UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4`,
		Args:              exactArgs("ID"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			return a.agentsTrust(cmd.Context(), args[0], key)
		}),
	}
	cmd.Flags().StringVar(&key, "key", "", "trust only if the card names this key (`U...`)")
	return cmd
}

func (a *app) agentsTrust(ctx context.Context, agent, want string) error {
	m, _, err := a.openMailbox(false)
	if err != nil {
		return err
	}
	defer m.close()
	if m.be == nil {
		return fmt.Errorf("no agent %s: no mailbox in %s", agent, m.where)
	}
	now := time.Now()
	old, pin, err := keys.Trust(ctx, m.be, agent, want, now)
	if errors.Is(err, store.ErrUnknownAgent) {
		return fmt.Errorf("no agent %s in %s: it has no card", agent, m.where)
	}
	if err != nil {
		return err
	}
	what := "pinned " + pin.PublicKey + " by " + keys.ByOperator
	if old != nil && old.PublicKey != pin.PublicKey {
		what += ", replacing " + old.PublicKey
	}
	ev := store.Event{Time: now, Kind: store.EventKey, Agent: agent, From: operator.Actor, Reason: what}
	if err := m.be.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		a.warn(fmt.Errorf("record the trust in the audit log: %w", err))
	}
	switch {
	case old == nil:
		_, err = fmt.Fprintf(a.env.Stdout, "%s: key %s pinned\n", agent, pin.PublicKey)
	case old.PublicKey == pin.PublicKey:
		_, err = fmt.Fprintf(a.env.Stdout, "%s: key %s was pinned already (now by the operator)\n", agent, pin.PublicKey)
	default:
		_, err = fmt.Fprintf(a.env.Stdout, "%s: key %s pinned, replacing %s\n", agent, pin.PublicKey, old.PublicKey)
	}
	return err
}
