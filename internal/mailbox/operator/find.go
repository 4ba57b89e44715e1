package operator

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// FindSetAside returns the set-aside message that id names: AGENT/REF as
// SetAside lists it, or the id of the message set aside (refused when
// more than one set-aside copy has it: name one by AGENT/REF then).
func (o *Operator) FindSetAside(ctx context.Context, id string) (store.SetAside, error) {
	if agent, ref, ok := strings.Cut(id, "/"); ok {
		if err := checkRef(agent, ref); err != nil {
			return store.SetAside{}, err
		}
		items, err := o.SetAside(ctx, agent)
		if err != nil {
			return store.SetAside{}, err
		}
		for _, it := range items {
			if it.Ref == ref {
				return it, nil
			}
		}
		return store.SetAside{}, fmt.Errorf("%s: %w (list them with: switchboard dead %s)", id, store.ErrNotSetAside, agent)
	}
	items, err := o.SetAside(ctx, "")
	if err != nil {
		return store.SetAside{}, err
	}
	var found []store.SetAside
	for _, it := range items {
		if it.Ref == id || it.Message != nil && it.Message.ID == id {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 0:
		return store.SetAside{}, fmt.Errorf("%s: %w (list them with: switchboard dead)", id, store.ErrNotSetAside)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, it := range found {
		names[i] = it.Agent + "/" + it.Ref
	}
	return store.SetAside{}, fmt.Errorf("%w: %s names %d set-aside messages (%s): name one as AGENT/REF",
		ErrUsage, id, len(found), strings.Join(names, ", "))
}
