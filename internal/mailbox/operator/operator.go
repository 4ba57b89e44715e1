package operator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

// Actor is the agent id the operator acts as: the sender of what the
// operator sends and the actor of every operator entry in the audit log.
const Actor = agent.Operator

// MetaSentBy is the metadata key set on what the operator sends in an
// agent's name (a cancel): its value is Actor.
const MetaSentBy = keys.MetaSentBy

// ErrUsage marks a request the operator must change (no such task, a
// missing id): the command line exits 2 on it, the console answers 400.
var ErrUsage = errors.New("bad request")

// Config is what an Operator is made with.
type Config struct {
	// Store is the mailbox store acted on (required).
	Store *store.Store
	// DefaultTTL is the ttl of what the operator sends (0: route's default).
	DefaultTTL int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives warnings (nil discards).
	Logger *slog.Logger
	// Actor is who acts, as the audit log and sent_by name it (default
	// Actor, "operator"; an agent breaking a deadlock it is part of acts
	// under its own id).
	Actor string
	// Key is the actor's signing key (nil: none). What the actor sends
	// in its own name is signed with it; what it sends in another
	// agent's name (a cancel) is signed with that agent's key when it can
	// be read here, else with Key: receivers take such a task_update
	// when its sent_by is who receives it or the operator (see
	// keys.SentBy).
	Key *keys.Key
}

// Operator acts on a mailbox store as a person.
type Operator struct {
	cfg Config
}

// New returns an Operator on cfg.Store.
func New(cfg Config) (*Operator, error) {
	if cfg.Store == nil {
		return nil, errors.New("operator: a store is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Actor == "" {
		cfg.Actor = Actor
	}
	return &Operator{cfg: cfg}, nil
}

// record appends an entry to the audit log (when the store keeps one):
// the operator did what, to ev's message. From is the operator; so is
// Agent of an EventOperator (an approval's Agent is the agent that
// waits). A failure to record is logged, not returned: the action itself
// was done.
func (o *Operator) record(ctx context.Context, kind store.EventKind, what string, ev store.Event) {
	ev.Time, ev.Kind, ev.From, ev.Reason = o.cfg.Now(), kind, o.cfg.Actor, what
	if ev.Agent == "" || kind == store.EventOperator {
		ev.Agent = o.cfg.Actor
	}
	if err := o.cfg.Store.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		o.cfg.Logger.Warn("record an operator action in the audit log", "action", what, "err", err)
	}
}

// lacks is the error of an action the store cannot do.
func lacks(action, what string) error {
	return fmt.Errorf("%s: this store %s", action, what)
}
