package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// operatorKey returns the operator's signing key where the command line
// finds an agent's key (see keySource), for what the operator sends:
// made and pinned as the operator's own when create is set (the console,
// the operator's long-running tool, does that at its start, as an agent
// does), else nil when there is none (the operator's messages then go
// unsigned, and receivers that take nothing unsigned refuse them).
func (a *app) operatorKey(ctx context.Context, m *mailboxStore, s *settings, create bool) (*keys.Key, error) {
	src := keySource(s, operator.Actor)
	src.Create = create
	key, err := keys.Load(ctx, m.be, operator.Actor, src)
	if errors.Is(err, keys.ErrNoKey) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the operator's signing key: %w", err)
	}
	if !create {
		return key, nil
	}
	own, err := keys.PinOwn(ctx, m.be, operator.Actor, key, s.mailbox.Policy(), time.Now())
	if err != nil {
		return nil, fmt.Errorf("pin the operator's signing key: %w", err)
	}
	if own.Change == keys.ChangeRefused {
		fmt.Fprintf(a.env.Stderr, "switchboard: the operator's signing key (%s) is not the one pinned for %s: receivers refuse what it signs until `switchboard agents trust %s`\n",
			key.Where, operator.Actor, operator.Actor)
	}
	return key, nil
}
