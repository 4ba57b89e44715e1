package store

import (
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// ErrNotSupported is wrapped by a call the store's backend cannot do and
// the facade cannot emulate from its primitives (Browse on a backend that
// keeps no messages once handled, Watch on one that cannot follow them).
// The error names what is missing; callers that can do without it stay
// quiet about it.
var ErrNotSupported = errors.New("not supported by this mailbox store")

// Ability is something a backend may do itself, beyond the primitives
// every backend has (see package driver).
type Ability string

// The abilities Has reports. Where the facade emulates one, the call
// works on every store and Has says only whether it is the backend's own
// (cheap) way or the emulation (noted at each).
const (
	// CanBrowse: Browse lists every message held. Without it, Browse,
	// and what is emulated through it, fails with ErrNotSupported.
	CanBrowse Ability = "browse"
	// CanSkim: Skim reads an index of summaries; emulated through Browse.
	CanSkim Ability = "skim"
	// CanCount: Depth and InboxAgents count inboxes without reading the
	// messages; Depth is emulated through Browse, InboxAgents is not.
	CanCount Ability = "count inboxes"
	// CanListPending: Pending lists an inbox, unreadable entries
	// included; emulated through Browse.
	CanListPending Ability = "list pending messages"
	// CanFindInbox: HasInbox knows agents that have an inbox but no card.
	CanFindInbox Ability = "find inboxes"
	// CanWatch: Watch follows new messages.
	CanWatch Ability = "watch"
	// CanAudit: Record appends to an audit log.
	CanAudit Ability = "keep an audit log"
	// CanReadAudit: ReadAudit reads the audit log back.
	CanReadAudit Ability = "read the audit log"
	// CanDeadLetters: SetAside, Redeliver and Discard deal with what
	// inboxes set aside.
	CanDeadLetters Ability = "list set-aside messages"
	// CanTrackPresence: Presence comes from the backend's own tracking
	// (NATS: keys that expire); emulated from the cards' heartbeats.
	CanTrackPresence Ability = "track presence"
	// CanHeartbeat: Heartbeat renews a heartbeat without rewriting the
	// card.
	CanHeartbeat Ability = "renew heartbeats"
	// CanPing: Ping asks the backend; emulated by reading the cards.
	CanPing Ability = "ping"
	// CanTakeTurns: TakeTurn shares a periodic duty among the agents;
	// without it every caller is told to do the duty.
	CanTakeTurns Ability = "share duties"
	// CanKeepSecrets: an agent's state records are private to the user
	// who runs the agents (KeepsSecrets).
	CanKeepSecrets Ability = "keep secrets in agent records"
	// CanUseCredentialKey: CredentialSeed gives the key the store connects
	// with.
	CanUseCredentialKey Ability = "connect with an agent's key"
	// CanSweep (an Inbox's): SweepTask archives a task's messages.
	CanSweep Ability = "sweep tasks"
	// CanPrune (an Inbox's): Prune applies a Retention.
	CanPrune Ability = "prune"
	// CanPick (an Inbox's): Pick hands out one message by its Ref.
	CanPick Ability = "hand out a message out of turn"
	// CanAckPipelined (an Inbox's): AckPipelined does not wait for the
	// acknowledgement to be durable; emulated with Ack.
	CanAckPipelined Ability = "acknowledge pipelined"
	// CanStoreArtifacts: Artifacts keeps files that messages name by uri.
	CanStoreArtifacts Ability = "store artifacts"
	// CanNudge: a drain request reaches the running agent at once
	// (WatchDrainRequests); without it the agent reads the request's
	// record at every heartbeat.
	CanNudge Ability = "nudge running agents"
	// CanUpdateRecords: a record shared by several writers can be changed
	// in place (the file reservations are built on it).
	CanUpdateRecords Ability = "update records in place"
	// CanLeaveCards: LeaveCard leaves an update the registry could not
	// take in time queued for its next writer; emulated with UpdateCard.
	CanLeaveCards Ability = "leave card updates queued"
)

// Has reports whether the backend does a itself (see Ability).
func (s *Store) Has(a Ability) bool {
	var ok bool
	switch a {
	case CanBrowse:
		_, ok = s.be.(driver.Browser)
	case CanSkim:
		_, ok = s.be.(driver.Skimmer)
	case CanCount:
		_, ok = s.be.(driver.InboxCounter)
	case CanListPending:
		_, ok = s.be.(driver.PendingLister)
	case CanFindInbox:
		_, ok = s.be.(driver.InboxFinder)
	case CanWatch:
		_, ok = s.be.(driver.Watcher)
	case CanAudit:
		_, ok = s.be.(driver.Auditor)
	case CanReadAudit:
		_, ok = s.be.(driver.AuditReader)
	case CanDeadLetters:
		_, ok = s.be.(driver.DeadLetters)
	case CanTrackPresence:
		_, ok = s.be.(driver.PresenceLister)
	case CanHeartbeat:
		_, ok = s.be.(driver.Heartbeater)
	case CanPing:
		_, ok = s.be.(driver.Pinger)
	case CanStoreArtifacts:
		_, ok = s.be.(driver.Artifacts)
	case CanUpdateRecords:
		_, ok = s.be.(driver.RecordUpdater)
	case CanLeaveCards:
		_, ok = s.be.(driver.CardLeaver)
	case CanNudge:
		_, ok = s.be.(driver.Nudger)
	case CanTakeTurns:
		_, ok = s.be.(driver.TurnTaker)
	case CanKeepSecrets:
		_, ok = s.be.(driver.SecretKeeper)
	case CanUseCredentialKey:
		_, ok = s.be.(driver.CredentialKeys)
	}
	return ok
}

// Has reports whether the inbox does a itself (CanSweep, CanPrune,
// CanAckPipelined, CanPick).
func (i *Inbox) Has(a Ability) bool {
	var ok bool
	switch a {
	case CanSweep:
		_, ok = i.in.(driver.TaskSweeper)
	case CanPrune:
		_, ok = i.in.(driver.Pruner)
	case CanAckPipelined:
		_, ok = i.in.(driver.PipelinedAcker)
	case CanPick:
		_, ok = i.in.(driver.Picker)
	}
	return ok
}

// notSupported is the error of a call that needs a.
func notSupported(a Ability) error {
	return fmt.Errorf("%w: it cannot %s", ErrNotSupported, a)
}
