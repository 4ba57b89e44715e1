package memstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var (
	_ driver.TaskSweeper = (*Inbox)(nil)
	_ driver.Pruner      = (*Inbox)(nil)
)

// SweepTask implements driver.TaskSweeper: the acknowledged messages of
// task taskID move to the inbox's archive (BoxArchive in Browse), each
// reported as EventSwept. Pending and handed-out messages stay.
func (in *Inbox) SweepTask(ctx context.Context, taskID string) (int, error) {
	if taskID == "" {
		return 0, errors.New("sweep task: empty task id")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	h := in.s.hub
	h.mu.Lock()
	if in.closed {
		h.mu.Unlock()
		return 0, driver.ErrClosed
	}
	q := h.inboxes[in.agent]
	var evs []driver.Event
	q.processed = slices.DeleteFunc(q.processed, func(it *item) bool {
		if it.about.TaskID != taskID {
			return false
		}
		q.archive = append(q.archive, it)
		ev := it.about
		ev.Kind, ev.Time = driver.EventSwept, time.Time{}
		ev.Ref = path.Join(string(driver.BoxArchive), "by-task", taskID, it.name)
		evs = append(evs, in.s.logLocked(ev))
		return true
	})
	h.mu.Unlock()
	in.s.notify(evs...)
	return len(evs), nil
}

// Prune implements driver.Pruner: from the acknowledged and the archived
// messages (each bound on its own) it removes those stored longer ago
// than the age bound, by the store's clock, then the oldest until the
// total size is within the size bound. One EventPruned per box says how
// much went.
func (in *Inbox) Prune(ctx context.Context, r driver.Retention) (driver.PruneReport, error) {
	if err := ctx.Err(); err != nil {
		return driver.PruneReport{}, err
	}
	h := in.s.hub
	h.mu.Lock()
	if in.closed {
		h.mu.Unlock()
		return driver.PruneReport{}, driver.ErrClosed
	}
	q := h.inboxes[in.agent]
	now := in.s.opts.Now()
	var total driver.PruneReport
	var evs []driver.Event
	for _, b := range []struct {
		items  *[]*item
		box    driver.Box
		maxAge time.Duration
		max    int64
	}{
		{&q.processed, driver.BoxProcessed, r.ProcessedMaxAge, r.ProcessedMaxBytes},
		{&q.archive, driver.BoxArchive, r.ArchiveMaxAge, r.ArchiveMaxBytes},
	} {
		var rep driver.PruneReport
		*b.items, rep = pruneItems(*b.items, now.Add(-b.maxAge), b.maxAge > 0, b.max)
		if rep.Files > 0 {
			total.Files += rep.Files
			total.Bytes += rep.Bytes
			evs = append(evs, in.s.logLocked(driver.Event{Kind: driver.EventPruned, Agent: in.agent, Ref: string(b.box),
				Reason: fmt.Sprintf("removed %d message(s), %d bytes, from %s (retention)", rep.Files, rep.Bytes, b.box)}))
		}
	}
	h.mu.Unlock()
	in.s.notify(evs...)
	return total, nil
}

// pruneItems drops, oldest first, the items stored before cutoff (when
// byAge) and then those that take the total past maxBytes (when above 0).
func pruneItems(items []*item, cutoff time.Time, byAge bool, maxBytes int64) ([]*item, driver.PruneReport) {
	var rep driver.PruneReport
	if !byAge && maxBytes <= 0 {
		return items, rep
	}
	oldest := slices.SortedFunc(slices.Values(items), func(a, b *item) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.seq, b.seq))
	})
	var size int64
	for _, it := range items {
		size += int64(len(it.data))
	}
	drop := map[*item]bool{}
	for _, it := range oldest {
		if !(byAge && it.at.Before(cutoff)) && !(maxBytes > 0 && size > maxBytes) {
			break
		}
		drop[it] = true
		size -= int64(len(it.data))
		rep.Files++
		rep.Bytes += int64(len(it.data))
	}
	return slices.DeleteFunc(items, func(it *item) bool { return drop[it] }), rep
}
