package memstore

import (
	"bytes"
	"cmp"
	"context"
	"maps"
	"path"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Browser = (*Store)(nil)

// browsed is one item Browse reports, taken under the hub's lock.
type browsed struct {
	agent string
	box   driver.Box
	dir   string // Ref without the file name
	data  []byte
}

// Browse implements driver.Browser: it reports every message of every inbox
// of the hub, pending (BoxInbox), handed out (BoxClaimed), acknowledged
// (BoxProcessed) and swept with its task (BoxArchive), agents in id order.
// Ref is named as the filesystem store names the file:
// "<agent>/<box>/<file name>", and "<agent>/archive/by-task/<task>/<file
// name>" in an archive. What was set aside, and input that does not
// decode, is not reported. fn runs without the hub's lock, so it may call
// the store.
func (s *Store) Browse(ctx context.Context, fn func(driver.Stored) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	for _, b := range s.hub.snapshot() {
		if err := ctx.Err(); err != nil {
			return err
		}
		msg, err := envelope.Decode(bytes.NewReader(b.data), s.opts.MaxMessageBytes)
		if err != nil {
			continue
		}
		st := driver.Stored{Message: msg, Agent: b.agent, Box: b.box, Ref: path.Join(b.dir, envelope.FileName(msg))}
		if !fn(st) {
			return nil
		}
	}
	return nil
}

// snapshot lists what Browse reports.
func (h *Hub) snapshot() []browsed {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []browsed
	for _, agent := range slices.Sorted(maps.Keys(h.inboxes)) {
		q := h.inboxes[agent]
		add := func(box driver.Box, items []*item) {
			for _, it := range items {
				dir := path.Join(agent, string(box))
				if box == driver.BoxArchive {
					dir = path.Join(dir, "by-task", it.about.TaskID)
				}
				out = append(out, browsed{agent: agent, box: box, dir: dir, data: it.data})
			}
		}
		add(driver.BoxInbox, q.pending)
		add(driver.BoxClaimed, slices.SortedFunc(maps.Values(q.claimed), func(a, b *item) int { return cmp.Compare(a.seq, b.seq) }))
		add(driver.BoxProcessed, q.processed)
		add(driver.BoxArchive, q.archive)
	}
	return out
}
