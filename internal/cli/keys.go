package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

func (a *app) keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "An agent's signing key: show it, prove it to an MCP server",
		Long: `Every switchboard agent signs what it sends with its own ed25519 key (an
nkeys user key), made at its first start and published on its card; the
receivers believe a message only when the key pinned for its sender signed
it. Where the key is kept: channels.mailbox.keyFile when set; else the key
of the agent's own NATS credentials; else its state on the mailbox folder
(<root>/<agent>/state/signing-key.json, 0600); else ~/.nanobot/keys/<agent>.nk.
See docs/security.md.`,
	}
	cmd.AddCommand(a.keysShowCommand(), a.keysProveCommand(), a.keysNewOperatorCommand(), a.keysSignCardCommand())
	return cmd
}

func (a *app) keysShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "show ID",
		Short:             "Print agent ID's public key and where its key is kept",
		Args:              exactArgs("ID"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			key, err := a.loadKey(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.env.Stdout, "%s\t%s\t%s\n", key.Public, key.Origin, key.Where)
			return err
		}),
	}
}

func (a *app) keysProveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "prove ID NONCE",
		Short: "Sign an MCP server's challenge with agent ID's key",
		Long: `Prove prints the proof that agent ID's key signed NONCE, the nonce the
challenge tool of ` + "`switchboard mcp --listen`" + ` gave: pass what it prints as
the register tool's token to register as ID with no token configured for
it. Run it where the agent's key can be read (see switchboard keys).`,
		Example:           `  switchboard keys prove coder 3q2-7Yb0kVd1oZkQ8m5x3QKf1n3Yp0aJ`,
		Args:              exactArgs("ID", "NONCE"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			key, err := a.loadKey(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			proof, err := keys.Prove(key, args[0], args[1])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.env.Stdout, proof)
			return err
		}),
	}
}

// loadKey reads agent's signing key where the command line finds it (see
// keySource); it makes none.
func (a *app) loadKey(ctx context.Context, agent string) (*keys.Key, error) {
	m, s, err := a.openMailbox(true)
	if err != nil {
		return nil, err
	}
	defer m.close()
	return keys.Load(ctx, m.be, agent, keySource(s, agent))
}
