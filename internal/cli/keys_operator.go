package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
	"github.com/switchboard-dev/switchboard/internal/token"
)

func (a *app) keysNewOperatorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "new-operator FILE",
		Short: "Make an operator key (in FILE, 0600) and print its public key",
		Long: `New-operator makes an operator signing key (an nkeys operator key) in FILE,
mode 0600 (never replacing a file), and prints its public key ("O..."): put
that in channels.mailbox.operatorKey of every agent's config. Receivers then
believe a key seen for the first time only when the operator vouched for it
(switchboard keys sign-card), and take a changed key so vouched for without
` + "`switchboard agents trust`" + `. Keep FILE off the agents' machines.`,
		Args: exactArgs("FILE"),
		RunE: a.action(func(_ *cobra.Command, args []string) error {
			path, err := config.ExpandHome(args[0])
			if err != nil {
				return err
			}
			if err := keys.MakeFile(path, nkeys.CreateOperator); err != nil {
				return err
			}
			kp, err := readOperatorKey(path)
			if err != nil {
				return err
			}
			pub, err := kp.PublicKey()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.env.Stdout, pub)
			return err
		}),
	}
}

func (a *app) keysSignCardCommand() *cobra.Command {
	var keyFile string
	cmd := &cobra.Command{
		Use:   "sign-card ID --operator-key FILE",
		Short: "Vouch with the operator key for the key agent ID's card names",
		Long: `Sign-card signs, with the operator key in FILE, the statement that the key
agent ID's card names now is ID's, and records the signature in the agent's
state (record key-signature). The agent puts it on its card (key_signature)
at its next start; receivers whose channels.mailbox.operatorKey is that
operator's then believe the key, on first sight or as a rotation.`,
		Example:           `  switchboard keys sign-card coder --operator-key ~/secure/operator.nk`,
		Args:              exactArgs("ID"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if keyFile == "" {
				return errors.New("--operator-key FILE is required (made by switchboard keys new-operator)")
			}
			return a.signCard(cmd.Context(), args[0], keyFile)
		}),
	}
	cmd.Flags().StringVar(&keyFile, "operator-key", "", "the operator key's `FILE` (keys new-operator)")
	return cmd
}

func (a *app) signCard(ctx context.Context, agent, keyFile string) error {
	path, err := config.ExpandHome(keyFile)
	if err != nil {
		return err
	}
	op, err := readOperatorKey(path)
	if err != nil {
		return err
	}
	m, _, err := a.openMailbox(false)
	if err != nil {
		return err
	}
	defer m.close()
	if m.be == nil {
		return fmt.Errorf("no agent %s: no mailbox in %s", agent, m.where)
	}
	card, err := m.be.Card(ctx, agent)
	if errors.Is(err, store.ErrUnknownAgent) {
		return fmt.Errorf("no agent %s in %s: it has no card", agent, m.where)
	}
	if err != nil {
		return err
	}
	if err := envelope.SignCard(&card, op); err != nil {
		return fmt.Errorf("%w: start the agent first (a switchboard agent publishes its key on its card)", err)
	}
	now := time.Now()
	e := keys.Endorsement{PublicKey: card.PublicKey, KeySignature: card.KeySignature, SignedAt: now.UTC()}
	if err := keys.SaveEndorsement(ctx, m.be, agent, e); err != nil {
		return err
	}
	ev := store.Event{Time: now, Kind: store.EventKey, Agent: agent, From: operator.Actor, Reason: "operator key vouched for " + card.PublicKey}
	if err := m.be.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		a.warn(fmt.Errorf("record it in the audit log: %w", err))
	}
	_, err = fmt.Fprintf(a.env.Stdout, "%s: key %s vouched for; it is on the card from the agent's next start\n", agent, card.PublicKey)
	return err
}

// readOperatorKey reads an operator key file (readable by its owner only).
func readOperatorKey(path string) (nkeys.KeyPair, error) {
	data, err := token.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no operator key file %s (make one with switchboard keys new-operator)", path)
	}
	if err != nil {
		return nil, err
	}
	kp, err := nkeys.FromSeed([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("operator key file %s: %w", path, err)
	}
	if pub, err := kp.PublicKey(); err != nil || !nkeys.IsValidPublicOperatorKey(pub) {
		return nil, fmt.Errorf("operator key file %s: not an nkeys operator seed (SO...)", path)
	}
	return kp, nil
}
