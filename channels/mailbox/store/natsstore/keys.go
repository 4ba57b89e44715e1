package natsstore

import (
	"fmt"
	"os"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.CredentialKeys = (*Store)(nil)

// CredentialSeed implements driver.CredentialKeys: the seed of the user
// nkey in Options.KeyFile (a .creds file or an nkey seed file), when agent
// is Options.Agent. With per-agent credentials that key is the agent's
// own, and the server has authenticated it.
func (s *Store) CredentialSeed(agent string) ([]byte, error) {
	if s.opts.KeyFile == "" || agent == "" || agent != s.opts.Agent {
		return nil, fmt.Errorf("%w (the store connects without an nkey of %q)", driver.ErrNoCredentialKey, agent)
	}
	data, err := os.ReadFile(s.opts.KeyFile) // the connection read it already
	if err != nil {
		return nil, fmt.Errorf("signing key of %s: %w", agent, err)
	}
	kp, err := nkeys.ParseDecoratedUserNKey(data)
	if err != nil {
		return nil, fmt.Errorf("signing key of %s from %s: %w", agent, s.opts.KeyFile, err)
	}
	return kp.Seed()
}
