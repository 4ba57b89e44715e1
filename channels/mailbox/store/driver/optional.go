package driver

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Optional abilities of a Backend or an Inbox, found by type assertion in
// the facade (package store) and nowhere else. The facade uses each one
// when the backend has it, and emulates it or refuses otherwise, so a
// backend can grow into them one at a time.

// Auditor is a Backend that keeps an audit log: Record appends ev to it
// (and reports it to the backend's Observer), for what the channel does
// beyond the store's own events (delivered, swept, overdue).
type Auditor interface {
	Record(ctx context.Context, ev Event) error
}

// Browser is a Backend that can list every message it still holds,
// wherever it is: pending, claimed, handled or archived. Threads, replies
// owed and the doctor are built on it.
type Browser interface {
	// Browse calls fn for each stored message, in no particular order,
	// until fn returns false or ctx ends. Entries that cannot be decoded
	// are skipped. While receivers run, a message they move on during the
	// walk may be reported twice (once in each place); a caller that counts
	// messages counts them by id.
	Browse(ctx context.Context, fn func(Stored) bool) error
}

// Box is where a stored message is.
type Box string

// The places a message can be.
const (
	BoxInbox     Box = "inbox"     // pending
	BoxClaimed   Box = "claimed"   // taken by the receiver, not yet handled
	BoxProcessed Box = "processed" // handled
	BoxArchive   Box = "archive"   // swept to its task's archive, or set aside as an orphan
)

// Stored is one message found by Browse.
type Stored struct {
	Message *envelope.Message
	// Agent is the agent whose mailbox holds the message.
	Agent string
	// Box is where the message is.
	Box Box
	// Ref is the backend's name for the item (a path under the root).
	Ref string
}

// TaskSweeper is an Inbox that can move the messages of an ended task
// out of the way of active routing, into an archive of that task where
// Browse still finds them.
type TaskSweeper interface {
	// SweepTask moves the handled messages of task taskID (their task
	// block or task_id names it) to the task's archive and returns how
	// many it moved. Each is reported as an EventSwept.
	SweepTask(ctx context.Context, taskID string) (int, error)
}

// Retention bounds what an inbox keeps of handled and archived messages.
// Zero fields set no bound.
type Retention struct {
	// ProcessedMaxAge and ArchiveMaxAge remove messages older than this.
	ProcessedMaxAge, ArchiveMaxAge time.Duration
	// ProcessedMaxBytes and ArchiveMaxBytes remove the oldest messages
	// until the folder holds at most this many bytes.
	ProcessedMaxBytes, ArchiveMaxBytes int64
}

// PruneReport says what a Prune removed.
type PruneReport struct {
	Files int
	Bytes int64
}

// Picker is an Inbox that can hand out one of its agent's messages out of
// turn, named by the Ref Browse gives it (pending, or left claimed by an
// owner that is gone): what an operator settles from outside the agent,
// with the inbox open in its own process (so the agent is not running).
// A ref that names nothing of this inbox fails with an error wrapping
// fs.ErrNotExist.
type Picker interface {
	Pick(ctx context.Context, ref string) (*Delivery, error)
}

// Pruner is an Inbox that can apply a Retention to its agent's handled
// and archived messages.
type Pruner interface {
	Prune(ctx context.Context, r Retention) (PruneReport, error)
}

// AuditReader is a Backend whose audit log can be read back: the events
// of every agent, as Auditor recorded them and as the store reported its
// own.
type AuditReader interface {
	// ReadAudit calls fn with each entry of the log, oldest first, until
	// fn returns false or ctx ends. Entries that cannot be decoded are
	// skipped; a store whose log is off or empty has no entries.
	ReadAudit(ctx context.Context, fn func(Event) bool) error
}

// InboxFinder is a Backend that can tell whether an agent has an inbox,
// registered or not (the folder store can): a bare name with an inbox is
// that agent when a send is addressed.
type InboxFinder interface {
	// HasInbox returns the inbox's location and whether it exists.
	HasInbox(agent string) (where string, ok bool, err error)
}

// Presence is whether one agent is online, as a PresenceLister tracks it.
type Presence struct {
	Agent  string
	Online bool
	// Status and Heartbeat are the card's, when Online.
	Status    envelope.Status
	Heartbeat time.Time
}

// PresenceLister is a Backend that tracks who is online apart from the
// cards (NATS: the presence bucket, whose keys expire after offlineAfter
// without a heartbeat). Listings prefer it to the cards' heartbeats.
type PresenceLister interface {
	// Online returns the agents online now, sorted by agent id.
	Online(ctx context.Context) ([]Presence, error)
}

// Watcher is a Backend that can follow messages as they arrive, without
// claiming or changing anything: what `switchboard watch` shows.
type Watcher interface {
	// Watch reports each message that arrives in agent's inbox (every
	// agent's when agent is ""), calling w's functions on the caller's
	// goroutine, one at a time, until ctx ends (it returns nil then) or
	// w.Arrived returns an error (it returns that error). Messages
	// already waiting when Watch starts are not reported; a message
	// arriving after w.Ready is called is reported once (a backend that
	// can lose some, say while its connection is down or when it falls
	// behind, says so through w.Notice). Watch fails at once when it
	// cannot watch at all (an agent id that is not valid, a store that
	// is closed, credentials that do not allow it).
	Watch(ctx context.Context, agent string, w WatchFuncs) error
}

// WatchFuncs are what a Watcher calls. Nil functions are not called.
type WatchFuncs struct {
	// Arrived is called with each new message. A non-nil error ends the
	// Watch, which returns it (the output is gone, say).
	Arrived func(Watched) error
	// Ready is called once, when the watch is in place: nothing that
	// arrives from then on can be missed for want of a watch.
	Ready func()
	// Notice is called with one line, for people, about the watch itself
	// rather than a message: the connection was lost, it is back,
	// messages were dropped because the watcher fell behind.
	Notice func(line string)
}

// Watched is one message a Watcher saw arrive.
type Watched struct {
	// Ref says where it arrived: the file's path under the root
	// ("coder/inbox/X.msg.json"), the subject it was published on.
	Ref string
	// Message is the decoded message; nil when Err says why it cannot be
	// read (malformed, too large, not a regular file, set aside by its
	// receiver before it could be read).
	Message *envelope.Message
	Err     error
}

// PendingLister is a Backend that can list what waits in one inbox, in
// delivery order, without claiming it, including what its receiver will
// set aside as unreadable (the folder store reads its inbox folder).
// Stores without it list their unhandled messages through Browser.
type PendingLister interface {
	// Pending calls fn for each message waiting in agent's inbox, oldest
	// first, until fn returns false or ctx ends: ref names the item, and
	// msg is nil when err says why it cannot be read. An agent without an
	// inbox has nothing pending.
	Pending(ctx context.Context, agent string, fn func(ref string, msg *envelope.Message, err error) bool) error
}

// InboxCounter is a Backend that counts the messages waiting in an inbox
// without reading them (the folder store counts files), and knows which
// agents have an inbox, registered or not. Stores without it count their
// unhandled messages through Browser.
type InboxCounter interface {
	// Depth returns how many messages wait in agent's inbox (0 for an
	// agent without one).
	Depth(agent string) (int, error)
	// Agents returns the agents the store holds a mailbox for, registered
	// or not, sorted.
	Agents() ([]string, error)
}

// Pinger is a Backend that can tell whether what holds its messages can be
// reached now: the mailbox folder is there and readable, the server
// answers. Readiness checks (/readyz) use it.
type Pinger interface {
	// Ping returns nil when the store can be reached, else why not.
	Ping(ctx context.Context) error
}

// Recoverer is an Inbox that tells when it has handed out again what an
// earlier owner of the inbox left unsettled (a stop or a crash with
// messages in hand), so that a caller can wait for those before it says
// that nothing waits.
type Recoverer interface {
	// Recovered is closed once every message an earlier owner handed out
	// and did not settle has been handed out again (or set aside, or
	// dropped as a duplicate), and Next has been called after the last of
	// them: a caller that is done with each delivery before it calls Next
	// again is done with them all. With none to hand out again, it is
	// closed by the first Next.
	Recovered() <-chan struct{}
}
