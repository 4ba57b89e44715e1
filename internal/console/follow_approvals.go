package console

import (
	"context"
	"slices"
	"time"
)

// watchApprovals re-reads the approvals every RegistryEvery and tells the
// pages when they changed: an agent asked, someone decided, an agent
// picked its decision up, or one expired. The list is small (what waits
// now), so reading it whole is cheap on every store; neither the folder's
// watch nor the inbox subjects carry the approval records.
func (c *Console) watchApprovals(ctx context.Context) {
	if _, none := c.cfg.Approvals.(NoApprovals); none {
		return
	}
	var last []approvalKey
	t := time.NewTicker(c.cfg.RegistryEvery)
	defer t.Stop()
	for {
		if now, err := c.approvalsKey(ctx); err == nil && !slices.Equal(now, last) {
			c.hub.publish("approvals")
			last = now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// approvalKey is what of an approval the pages show that can change.
type approvalKey struct {
	id      string
	expired bool
}

func (c *Console) approvalsKey(ctx context.Context) ([]approvalKey, error) {
	list, err := c.cfg.Approvals.Waiting(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]approvalKey, 0, len(list))
	for _, a := range list {
		keys = append(keys, approvalKey{id: a.ID, expired: a.Expired})
	}
	return keys, nil
}
