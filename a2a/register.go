package a2a

import (
	"fmt"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
)

func init() {
	channels.Register(TypeName, Factory)
	channels.RegisterChecker(TypeName, Check)
}

// Factory builds the gateway from a channels.a2a section; its mailbox
// identities take the settings of the config's channels.mailbox section
// (the store, the limits), as the host's own agent does.
func Factory(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg, err := DecodeConfig(section)
	if err != nil {
		return nil, err
	}
	mb, err := MailboxSettings(deps.Config)
	if err != nil {
		return nil, err
	}
	return New(cfg, Options{Mailbox: mb, Logger: deps.Logger, Clock: deps.Clock})
}

// MailboxSettings returns the mailbox settings of any identity under cfg:
// its channels.mailbox section over the defaults (or the defaults alone),
// the root's "~" expanded, with the identity's id and nothing of the
// section's own agent (description, capabilities, roles).
func MailboxSettings(cfg *config.Config) (func(agentID string) (mailbox.Config, error), error) {
	base := mailbox.DefaultConfig()
	if cfg != nil {
		if sec, ok := cfg.Section(mailbox.ChannelName); ok {
			var err error
			if base, err = mailbox.DecodeSection(sec); err != nil {
				return nil, err
			}
		}
	}
	root, err := config.ExpandHome(base.MailboxesRoot)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return nil, fmt.Errorf("channels.mailbox.mailboxesRoot: %w", err)
	}
	base.MailboxesRoot = root
	return func(id string) (mailbox.Config, error) {
		c := base
		def := mailbox.DefaultConfig()
		c.AgentID, c.Enabled = id, true
		c.Description, c.Capabilities, c.Roles = def.Description, def.Capabilities, def.Roles
		c.AllowFrom, c.MaxConcurrentTasks = def.AllowFrom, def.MaxConcurrentTasks
		return c, nil
	}, nil
}
