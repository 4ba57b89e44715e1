package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

// signAs signs msgs (all from one agent) with their sender's key when it
// can be read here (see keySource). When it cannot they go unsigned, and
// note is what send says of it on stderr once they are sent: receivers
// that pinned the sender's key set them aside.
func (a *app) signAs(ctx context.Context, m *mailboxStore, s *settings, msgs []*envelope.Message) (note string, err error) {
	for _, msg := range msgs {
		signed, why, err := keys.SignAs(ctx, m.be, msg, keySource(s, msg.From))
		if err != nil {
			return "", fmt.Errorf("sign as %s: %w", msg.From, err)
		}
		if !signed {
			return fmt.Sprintf("switchboard: sent unsigned: %s (agents that pinned %s's key set it aside)\n", oneLine(why), msg.From), nil
		}
	}
	return "", nil
}

// keySource is where agent's key is for the command line: the config's
// channels.mailbox.keyFile when its agentId is agent, else where Load
// looks by default.
func keySource(s *settings, agent string) keys.Source {
	if s.mailbox.AgentID == agent {
		return keys.Source{File: s.mailbox.KeyFile}
	}
	return keys.Source{}
}
