package fsstore

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Picker = (*Inbox)(nil)

// Pick implements driver.Picker: it claims the message file that ref (a
// path under the root, as Browse gives it) names in this agent's inbox/
// or claimed/ and hands it out, out of turn, as Next would (in the claim
// log, checked for its recipient and for duplicates). Next skips it
// afterwards: once settled, its file is gone from inbox/.
func (in *Inbox) Pick(ctx context.Context, ref string) (*driver.Delivery, error) {
	if err := driver.StillOpen(ctx, in.done); err != nil {
		return nil, err
	}
	agent, rest, _ := strings.Cut(filepath.ToSlash(ref), "/")
	sub, name, _ := strings.Cut(rest, "/")
	if agent != in.agent || (sub != inboxDir && sub != claimedDir) || classify(name) != entryMessage {
		return nil, fmt.Errorf("pick %s: not a message waiting in the inbox of %q: %w", ref, in.agent, fs.ErrNotExist)
	}
	if err := driver.TakeTurn(ctx, in.sem, in.done); err != nil { // not beside a running Next
		return nil, err
	}
	defer func() { <-in.sem }()
	_, logged := in.logged[name]
	d := in.take(name, sub, logged || sub == claimedDir)
	if d == nil {
		return nil, fmt.Errorf("pick %s: gone, handled already or set aside: %w", ref, fs.ErrNotExist)
	}
	return d, nil
}
