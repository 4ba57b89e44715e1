package memstore

import (
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// DefaultMaxMessageBytes is the default size cap of one message.
const DefaultMaxMessageBytes = 1 << 20

// handledKeep is how many handled message ids each inbox remembers to
// recognise a duplicate.
const handledKeep = 100_000

// Hub is one in-memory mailbox store: inboxes, cards and records. It is safe
// for concurrent use.
type Hub struct {
	mu      sync.Mutex
	inboxes map[string]*queue
	cards   map[string][]byte // agent id → card JSON
	records map[driver.Record][]byte
	seq     uint64
	audit   []driver.Event // the audit log; the last AuditKeep entries count

	artifacts artifacts // apart: their bytes are read without the hub's lock
	nudges    nudges    // apart: listeners are called without the hub's lock
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{inboxes: map[string]*queue{}, cards: map[string][]byte{}, records: map[driver.Record][]byte{}}
}

// Options configures a Store. Zero values take the defaults.
type Options struct {
	// MaxMessageBytes caps one encoded message (default 1 MiB).
	MaxMessageBytes int64
	// Observer receives an Event for each message handled; may be nil.
	Observer driver.Observer
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// item is one message in an inbox, as bytes.
type item struct {
	seq         uint64
	data        []byte
	redelivered bool
	at          time.Time // when it was stored, for retention
	// about and name are set when the item is acknowledged: the message's
	// event fields (id, sender, thread, task) and its file name.
	about driver.Event
	name  string
}

// Rejected is one item set aside, with the reason.
type Rejected struct {
	Data      []byte
	Reason    string
	MessageID string // empty when the input did not decode
}

// queue is one agent's inbox.
type queue struct {
	pending  []*item
	claimed  map[uint64]*item
	inflight map[string]int // own ids handed out and not settled
	handled  map[string]bool
	order    []string // handled ids, oldest first, to forget the oldest
	rejected []Rejected
	// processed and archive hold the acknowledged items, the latter those
	// swept with their task, until Prune removes them.
	processed []*item
	archive   []*item
	owner     *Inbox
	changed   chan struct{} // closed and replaced when pending grows
}

// queueLocked returns agent's inbox, creating it.
func (h *Hub) queueLocked(agent string) *queue {
	q, ok := h.inboxes[agent]
	if !ok {
		q = &queue{claimed: map[uint64]*item{}, inflight: map[string]int{}, handled: map[string]bool{},
			changed: make(chan struct{})}
		h.inboxes[agent] = q
	}
	return q
}

// pushLocked appends data, stored at `at`, to agent's inbox and wakes its
// reader.
func (h *Hub) pushLocked(agent string, data []byte, at time.Time) {
	q := h.queueLocked(agent)
	h.seq++
	q.pending = append(q.pending, &item{seq: h.seq, data: data, at: at})
	q.poke()
}

func (q *queue) poke() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// remember records a handled own id, forgetting the oldest past the cap.
func (q *queue) remember(id string) {
	if q.handled[id] {
		return
	}
	q.handled[id] = true
	q.order = append(q.order, id)
	if len(q.order) > handledKeep {
		delete(q.handled, q.order[0])
		q.order = q.order[1:]
	}
}

// InjectRaw appends data, as it is, to agent's inbox: input that bypassed
// Deliver's checks, as a foreign writer might leave it.
func (h *Hub) InjectRaw(agent string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pushLocked(agent, append([]byte(nil), data...), time.Now())
}

// Depth returns how many messages wait in agent's inbox, not counting
// those handed out.
func (h *Hub) Depth(agent string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if q, ok := h.inboxes[agent]; ok {
		return len(q.pending)
	}
	return 0
}

// Rejected returns what agent's inbox set aside, oldest first.
func (h *Hub) Rejected(agent string) []Rejected {
	h.mu.Lock()
	defer h.mu.Unlock()
	if q, ok := h.inboxes[agent]; ok {
		return append([]Rejected(nil), q.rejected...)
	}
	return nil
}

// validID is the check every agent id passes before use.
func validID(id string) error { return envelope.ValidateAgentID(id) }
