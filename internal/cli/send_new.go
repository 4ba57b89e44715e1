package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
)

// knownRecipient refuses a message to an agent that has neither a card nor
// an inbox — most often a typo, which would otherwise wait for ever for an
// agent that never comes — naming the closest known agent. An agent with a
// card, online or not, or with an inbox already, is known: its message
// waits for it. --new lifts the check.
func knownRecipient(ctx context.Context, m *mailboxStore, to string) error {
	_, err := m.be.Card(ctx, to)
	if err == nil {
		return nil
	}
	if !errors.Is(err, store.ErrUnknownAgent) {
		return err
	}
	if has := m.hasInbox(ctx); has != nil && has(to) {
		return nil
	}
	cards, err := m.be.Cards(ctx)
	if err != nil {
		return err
	}
	known := make([]string, 0, len(cards))
	for _, c := range cards {
		known = append(known, c.AgentID)
	}
	hint := ""
	if near, ok := config.Closest(to, known); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return usagef("--to %s: no agent %q is registered and it has no inbox%s; pass --new to send to an agent that has not started yet", to, to, hint)
}

// rootExists refuses a send to a mailbox folder that does not exist (it
// was removed, or no agent has started there) unless --new says the
// recipient has not started yet: opening the store would create an empty
// folder, and the recipient check would only say that no agent is
// registered.
func (a *app) rootExists() error {
	s, err := a.settings()
	if err != nil || a.backendKind(s) != backendFS {
		return err
	}
	root := s.mailbox.MailboxesRoot
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return usagef("the mailbox root %s does not exist (it was removed, or no agent has started there yet); check --root or channels.mailbox.mailboxesRoot, or pass --new to create it for an agent that has not started yet", tilde(root))
	}
	return nil
}
