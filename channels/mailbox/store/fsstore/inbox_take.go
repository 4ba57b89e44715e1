package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// take reads the message file name in the inbox's folder sub (inbox/, or
// claimed/ for what an owner before the claim log left there), claims it
// in the claim log and returns the delivery, or nil when there is nothing
// to hand out: the file was gone, is handed out already, was unusable
// (quarantined) or a duplicate (moved to processed/). recovered says that
// an earlier owner handed it out already.
func (in *Inbox) take(name, sub string, recovered bool) *driver.Delivery {
	in.mu.Lock()
	_, busy := in.handed[name]
	in.mu.Unlock()
	if busy {
		return nil // a priority marker for a message handed out already
	}
	msg, err := in.read(sub, name)
	if errors.Is(err, fs.ErrNotExist) {
		in.progress = true // moved away meanwhile (acknowledged, set aside): skip it
		return nil
	}
	in.progress = true
	if err != nil {
		in.quarantine(sub, name, err.Error(), driver.EventQuarantined, nil)
		return nil
	}
	if msg.To != in.agent {
		in.quarantine(sub, name, fmt.Sprintf("addressed to %q, not to %q", msg.To, in.agent),
			driver.EventQuarantined, msg)
		return nil
	}
	own := envelope.IsOwnID(msg.ID)
	in.mu.Lock()
	dup := own && (in.journal.has(msg.ID) || in.inflight[msg.ID] > 0)
	if own && !dup {
		in.inflight[msg.ID]++
	}
	in.mu.Unlock()
	if dup {
		in.dropDuplicate(sub, name, msg)
		return nil
	}
	if reason := in.claim(name, sub, recovered); reason != "" { // poison: see countAttempt
		in.forget(msg.ID, own)
		in.quarantine(sub, name, reason, driver.EventQuarantined, msg)
		return nil
	}
	in.s.emit(messageEvent(driver.EventClaimed, in.agent, msg, name))
	return &driver.Delivery{Message: msg, Redelivered: recovered, Ref: &claimRef{in: in, name: name, sub: sub, id: msg.ID, own: own}}
}

// read reads the message file sub/name: relative to the held inbox/ (one
// openat, one fstat, one read), by path for claimed/. A file with more
// than one link is checked first (extraLinks) and set aside if it must
// not be read.
func (in *Inbox) read(sub, name string) (*envelope.Message, error) {
	dir := filepath.Join(in.dir, sub)
	if sub == inboxDir {
		msg, links, err := readHeld(in.held.inbox, name, in.s.opts.MaxMessageBytes)
		if links <= 1 {
			return msg, err
		}
	}
	if reason := in.extraLinks(dir, name); reason != "" {
		return nil, errors.New(reason)
	}
	return readMessage(filepath.Join(dir, name), in.s.opts.MaxMessageBytes)
}

// dropDuplicate moves a copy of a message already handled (or being
// handled) from sub to processed/.
func (in *Inbox) dropDuplicate(sub, name string, msg *envelope.Message) {
	got, err := in.toProcessed(in.held, sub, name) // only Next swaps in.held
	if err != nil {
		in.log.Warn("cannot move duplicate to processed/; it stays", "file", name, "id", msg.ID, "err", err)
		return
	}
	in.log.Info("dropped a duplicate of a handled message", "file", name, "id", msg.ID, "from", msg.From)
	in.s.emit(messageEvent(driver.EventDuplicate, in.agent, msg, got))
}

// toProcessed moves sub/name into processed/ under a free name and
// returns it: relative to the held folders from inbox/ (by the paths when
// they were replaced since the last scan), by path from claimed/.
func (in *Inbox) toProcessed(held heldDirs, sub, name string) (string, error) {
	if sub == inboxDir {
		got, err := moveFreeAt(held.inbox, name, held.processed)
		if !errors.Is(err, fs.ErrNotExist) {
			return got, err
		}
	}
	return moveFree(filepath.Join(in.dir, sub), name, filepath.Join(in.dir, processedDir))
}
