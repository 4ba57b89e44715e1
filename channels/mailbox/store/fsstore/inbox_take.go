package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// take claims the inbox file name (or, when recovered, uses the file a
// crashed owner left in claimed/), reads it and returns the delivery, or
// nil when there is nothing to hand out: the file was gone, unusable
// (quarantined) or a duplicate (moved to processed/).
func (in *Inbox) take(name string, recovered bool) *store.Delivery {
	claimed := filepath.Join(in.dir, claimedDir)
	if !recovered {
		got, err := moveFreeAt(in.held.inbox, name, in.held.claimed)
		if errors.Is(err, fs.ErrNotExist) {
			in.progress = true // taken by someone else: skip it
			return nil
		}
		if err != nil {
			in.log.Warn("cannot claim inbox file; will retry", "file", name, "err", err)
			return nil
		}
		name = got
	}
	in.progress = true
	msg, links, err := readHeld(in.held.claimed, name, in.s.opts.MaxMessageBytes)
	if links > 1 { // not read: check the links first
		if reason := in.extraLinks(claimed, name); reason != "" {
			in.quarantine(claimedDir, name, reason, store.EventQuarantined, nil)
			return nil
		}
		msg, err = readMessage(filepath.Join(claimed, name), in.s.opts.MaxMessageBytes)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		in.quarantine(claimedDir, name, err.Error(), store.EventQuarantined, nil)
		return nil
	}
	if msg.To != in.agent {
		in.quarantine(claimedDir, name, fmt.Sprintf("addressed to %q, not to %q", msg.To, in.agent),
			store.EventQuarantined, msg)
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
		in.dropDuplicate(name, msg)
		return nil
	}
	if recovered {
		if reason := in.countAttempt(name); reason != "" { // poison: see attempts.go
			in.forget(msg.ID, own)
			in.quarantine(claimedDir, name, reason, store.EventQuarantined, msg)
			return nil
		}
	}
	in.s.emit(messageEvent(store.EventClaimed, in.agent, msg, name))
	return &store.Delivery{Message: msg, Redelivered: recovered, Ref: &claimRef{in: in, name: name, id: msg.ID, own: own}}
}

// dropDuplicate moves a claimed copy of a message already handled (or
// being handled) to processed/.
func (in *Inbox) dropDuplicate(name string, msg *envelope.Message) {
	got, err := moveFreeAt(in.held.claimed, name, in.held.processed)
	if err != nil {
		in.log.Warn("cannot move duplicate to processed/; it stays claimed", "file", name, "id", msg.ID, "err", err)
		return
	}
	in.log.Info("dropped a duplicate of a handled message", "file", name, "id", msg.ID, "from", msg.From)
	in.s.emit(messageEvent(store.EventDuplicate, in.agent, msg, got))
}
