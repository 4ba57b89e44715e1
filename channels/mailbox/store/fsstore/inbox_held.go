package fsstore

import (
	"errors"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// heldDirs are the folders an Inbox moves messages through, held open for
// the inbox's life: reads and acknowledgements work relative to them, and
// commits fsync them, without a path walk. (claimed/, where claims were
// moved before the claim log, is only read when the inbox is opened, by
// path.)
type heldDirs struct {
	inbox, processed *heldDir
}

// openHeld opens the inbox's folders (which OpenInbox created).
func (in *Inbox) openHeld() error {
	var h heldDirs
	for _, f := range []struct {
		sub string
		dst **heldDir
	}{{inboxDir, &h.inbox}, {processedDir, &h.processed}} {
		d, err := openHeldDir(filepath.Join(in.dir, f.sub))
		if err != nil {
			h.close()
			return err
		}
		*f.dst = d
	}
	in.held = h
	return nil
}

// close lets the held folders go.
func (h heldDirs) close() error {
	var errs []error
	for _, d := range []*heldDir{h.inbox, h.processed} {
		if d != nil {
			errs = append(errs, d.close())
		}
	}
	return errors.Join(errs...)
}

// refreshHeld opens the folders again when one of them was removed or
// replaced since it was opened (recreating them as needed), so that moves
// go to the folders the paths name. It runs before each scan of inbox/
// (two stats a folder per scan of up to scanBatch names) and after a move
// that failed. reopened reports that it did. The caller runs Next and
// holds in.mu.
func (in *Inbox) refreshHeld() (reopened bool, err error) {
	h := in.held
	if !h.inbox.stale() && !h.processed.stale() {
		return false, nil
	}
	if _, err := in.s.ensureAgentDirs(in.agent, inboxDir, processedDir, rejectedDir); err != nil {
		return false, err
	}
	if in.commit != nil {
		in.commit.flush()
	}
	old := in.held
	if err := in.openHeld(); err != nil {
		return false, err
	}
	in.retired = append(in.retired, old) // closed with the inbox: a pending commit may still sync them
	return true, nil
}

// emitBatch reports the events of a group commit like emit, the audit log
// lines in one write.
func (s *Store) emitBatch(evs []driver.Event) {
	for i := range evs {
		if evs[i].Time.IsZero() {
			evs[i].Time = s.opts.Now()
		}
		if s.opts.Observer != nil {
			s.opts.Observer(evs[i])
		}
	}
	if s.audit == nil {
		return
	}
	if err := s.audit.AppendBatch(evs); err != nil {
		s.opts.Logger.Warn("audit log not written", "lines", len(evs), "err", err)
	}
}
