package store

import (
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The vocabulary of the store, shared with its drivers (package driver
// defines it; these are the same types under the names consumers use).

// Config is what a store is opened with (see driver.Config).
type Config = driver.Config

// Delivery is one claimed message (see driver.Delivery).
type Delivery = driver.Delivery

// Event describes one thing a store did with a message (see driver.Event).
type Event = driver.Event

// EventKind names what happened to a message.
type EventKind = driver.EventKind

// Observer receives events; it is called synchronously and must not block.
type Observer = driver.Observer

// Stored is one message found by Browse (see driver.Stored).
type Stored = driver.Stored

// Box is where a stored message is.
type Box = driver.Box

// Summary is the part of a message the views decide on (see
// driver.Summary).
type Summary = driver.Summary

// TaskSummary is the part of a task block a Summary keeps.
type TaskSummary = driver.TaskSummary

// Skimmed is one message listed by Skim: its summary, and where it is.
type Skimmed = driver.Skimmed

// Watched is one message Watch saw arrive.
type Watched = driver.Watched

// WatchFuncs are what Watch calls (see driver.WatchFuncs).
type WatchFuncs = driver.WatchFuncs

// Retention bounds what an inbox keeps of handled and archived messages.
type Retention = driver.Retention

// PruneReport says what a Prune removed.
type PruneReport = driver.PruneReport

// SetAside is one message an inbox set aside (see driver.SetAside).
type SetAside = driver.SetAside

// The places a message can be.
const (
	BoxInbox     = driver.BoxInbox     // pending
	BoxClaimed   = driver.BoxClaimed   // taken by the receiver, not yet handled
	BoxProcessed = driver.BoxProcessed // handled
	BoxArchive   = driver.BoxArchive   // swept to its task's archive, or set aside as an orphan
)

// The kinds of Event (see driver.EventSent and the rest).
const (
	EventSent        = driver.EventSent
	EventClaimed     = driver.EventClaimed
	EventProcessed   = driver.EventProcessed
	EventRefused     = driver.EventRefused
	EventQuarantined = driver.EventQuarantined
	EventDuplicate   = driver.EventDuplicate
	EventDelivered   = driver.EventDelivered
	EventSwept       = driver.EventSwept
	EventOverdue     = driver.EventOverdue
	EventPruned      = driver.EventPruned
	EventOrphaned    = driver.EventOrphaned
	EventOperator    = driver.EventOperator
	EventUsage       = driver.EventUsage
	EventApproval    = driver.EventApproval
	EventKey         = driver.EventKey
)

// Errors a store's calls wrap (see package driver for each).
var (
	ErrClosed       = driver.ErrClosed
	ErrInboxBusy    = driver.ErrInboxBusy
	ErrUnknownAgent = driver.ErrUnknownAgent
	ErrNoStore      = driver.ErrNoStore
	ErrTurnedOff    = driver.ErrTurnedOff
	ErrNotSetAside  = driver.ErrNotSetAside
)

// EventKinds lists every kind, in the order of a message's life.
func EventKinds() []EventKind { return driver.EventKinds() }

// Summarize returns the Summary of m.
func Summarize(m *envelope.Message) Summary { return driver.Summarize(m) }

// MaxDeliverReason is the reason of a message set aside after n hand-outs
// without an acknowledgement, the maxDeliver limit being max.
func MaxDeliverReason(n, max int) string { return driver.MaxDeliverReason(n, max) }

// IsMaxDeliver reports whether reason is one MaxDeliverReason made.
func IsMaxDeliver(reason string) bool { return driver.IsMaxDeliver(reason) }
