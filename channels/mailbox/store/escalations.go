package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Escalations keeps the escalations of stuck work (docs/guardrails.md,
// "When work gets stuck"), for every backend alike: an escalation is two
// records, the escalation itself on the shelf _escalation, written by the
// agent that escalated (it rewrites it as the escalation climbs its
// levels), and its decision on the shelf _escdecision, created by whoever
// decides first (a level's agent through its tool, a person in the chat,
// on the command line or in the console). The folder store keeps them as
// <root>/_escalation/<id>.json and <root>/_escdecision/<id>.json, NATS as
// the keys _escalation.<id> and _escdecision.<id> of its state bucket.
type Escalations struct {
	r   driver.Records
	log *slog.Logger
}

// The shelves of the escalations.
const (
	shelfEscalations = "_escalation"
	shelfEscDecision = "_escdecision"
)

// Errors of Escalations.
var (
	// ErrNoEscalation is wrapped when an id names no escalation.
	ErrNoEscalation = errors.New("no such escalation")
	// ErrEscalationDecided is wrapped by Decide when the escalation was
	// decided already: the first decision stands.
	ErrEscalationDecided = errors.New("the escalation was decided already")
)

// The actions that decide an escalation.
const (
	// ActRetry sends the task again to the worker (or the group) that had it.
	ActRetry = "retry"
	// ActReassign sends the task to another agent (Decision.Agent).
	ActReassign = "reassign"
	// ActCancel drops the task; the user is told.
	ActCancel = "cancel"
	// ActTakeOver hands the task to the level that decides: an agent does
	// it itself, a person takes it into their own hands.
	ActTakeOver = "takeover"
)

// Escalation is one piece of stuck work waiting for a decision: the
// task's context, the levels it climbs, and where it stands.
type Escalation struct {
	// ID names the escalation (a UUID).
	ID string `json:"id"`
	// Agent is the agent that escalated: the task's delegator, which acts
	// on the decision.
	Agent string `json:"agent"`
	// TaskID is the stuck task; ThreadID its thread.
	TaskID   string `json:"task_id"`
	ThreadID string `json:"thread_id,omitempty"`
	// Trigger is what made the work stuck: rejected, failed, notAccepted,
	// overdue, stalemate or deadlock.
	Trigger string `json:"trigger"`
	// Asked is the text of the task: what was asked.
	Asked string `json:"asked"`
	// Attempts are the workers that had it, in order, and what each said.
	Attempts []Attempt `json:"attempts"`
	// Trace is the agents the task passed (the delegator's task path).
	Trace []string `json:"trace,omitempty"`
	// Levels are the levels it climbs, in order (agent ids, cap:X,
	// role:X, human); Level is the index of the one asked now, AskedAt
	// the agent a group level went to, Since when it was asked and Due
	// when it climbs on without an answer.
	Levels  []string  `json:"levels"`
	Level   int       `json:"level"`
	AskedAt string    `json:"asked_at,omitempty"`
	Since   time.Time `json:"since"`
	Due     time.Time `json:"due"`
	// Chat is where a person answers the human level: channel and chat id.
	Chat *envelope.Callback `json:"chat,omitempty"`
	// Task is what it takes to send the task again (the delegator's
	// record of it), kept as its owner wrote it.
	Task json.RawMessage `json:"task,omitempty"`
	// Created is when the work was escalated.
	Created time.Time `json:"created"`
	// Decision is the decision, once made.
	Decision *EscalationDecision `json:"decision,omitempty"`
}

// Attempt is one worker's try at an escalated task.
type Attempt struct {
	Agent  string `json:"agent"`
	Said   string `json:"said"`
	Reason string `json:"reason,omitempty"`
}

// EscalationDecision is how a level answered an escalation.
type EscalationDecision struct {
	// Action is ActRetry, ActReassign, ActCancel or ActTakeOver.
	Action string `json:"action"`
	// Agent is who a reassigned task goes to.
	Agent string `json:"agent,omitempty"`
	// By is who decided: an agent id, "operator", or the chat's user.
	By string `json:"by"`
	// Level is the level that decided ("human", an agent id), as By
	// stands for it.
	Level  string    `json:"level,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// At returns the level asked now ("" past the last).
func (e Escalation) At() string {
	if e.Level < 0 || e.Level >= len(e.Levels) {
		return ""
	}
	return e.Levels[e.Level]
}

// CheckAction validates a decision's action and agent.
func (d EscalationDecision) CheckAction() error {
	switch d.Action {
	case ActRetry, ActCancel, ActTakeOver:
		return nil
	case ActReassign:
		if d.Agent == "" {
			return errors.New("reassign needs the agent to give the task to")
		}
		return envelope.ValidateAgentID(d.Agent)
	}
	return fmt.Errorf("unknown action %q: want retry, reassign AGENT, cancel or takeover", d.Action)
}

// Escalations returns the store's escalations.
func (s *Store) Escalations() *Escalations { return &Escalations{r: s.be, log: s.log} }

func escalationRecords(id string) (esc, decision driver.Record, err error) {
	if err := driver.CheckRecordKey(id); err != nil {
		return esc, decision, fmt.Errorf("%w: %v", ErrNoEscalation, err)
	}
	return driver.Record{Shelf: shelfEscalations, Key: id}, driver.Record{Shelf: shelfEscDecision, Key: id}, nil
}

// Save writes escalation e (a new one, or one that climbed); its decision
// is not part of it.
func (b *Escalations) Save(ctx context.Context, e Escalation) error {
	rec, _, err := escalationRecords(e.ID)
	if err != nil {
		return err
	}
	e.Decision = nil
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := b.r.SaveRecord(ctx, rec, data); err != nil {
		return fmt.Errorf("save escalation %s: %w", e.ID, err)
	}
	return nil
}

// Get returns escalation id with its decision, if any.
func (b *Escalations) Get(ctx context.Context, id string) (Escalation, error) {
	rec, decision, err := escalationRecords(id)
	if err != nil {
		return Escalation{}, err
	}
	var e Escalation
	data, err := b.r.LoadRecord(ctx, rec)
	if errors.Is(err, driver.ErrNoRecord) {
		return e, fmt.Errorf("escalation %s: %w", id, ErrNoEscalation)
	}
	if err != nil {
		return e, fmt.Errorf("escalation %s: %w", id, err)
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("escalation %s: %w", id, err)
	}
	e.ID, e.Decision = id, nil
	data, err = b.r.LoadRecord(ctx, decision)
	switch {
	case errors.Is(err, driver.ErrNoRecord):
	case err != nil:
		return e, fmt.Errorf("escalation %s: %w", id, err)
	default:
		var d EscalationDecision
		if err := json.Unmarshal(data, &d); err != nil {
			return e, fmt.Errorf("escalation %s: decision: %w", id, err)
		}
		e.Decision = &d
	}
	return e, nil
}

// List returns every escalation, oldest first. Records that cannot be
// read are skipped with a warning.
func (b *Escalations) List(ctx context.Context) ([]Escalation, error) {
	ids, err := b.r.ListRecords(ctx, shelfEscalations)
	if err != nil {
		return nil, fmt.Errorf("escalations: %w", err)
	}
	out := []Escalation{}
	for _, id := range ids {
		e, err := b.Get(ctx, id)
		if errors.Is(err, ErrNoEscalation) {
			continue // removed meanwhile
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			b.log.Warn("escalation record skipped", "id", id, "err", err)
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(x, y Escalation) int { return x.Created.Compare(y.Created) })
	return out, nil
}

// Decide records decision d of escalation id: the first decider wins; a
// later one fails with an error wrapping ErrEscalationDecided.
func (b *Escalations) Decide(ctx context.Context, id string, d EscalationDecision) (Escalation, error) {
	if err := d.CheckAction(); err != nil {
		return Escalation{}, err
	}
	e, err := b.Get(ctx, id)
	if err != nil {
		return e, err
	}
	if e.Decision != nil {
		return e, fmt.Errorf("escalation %s: %w (%s by %s)", id, ErrEscalationDecided, e.Decision.Action, e.Decision.By)
	}
	_, decision, _ := escalationRecords(id)
	data, err := json.Marshal(d)
	if err != nil {
		return e, err
	}
	if err := b.r.CreateRecord(ctx, decision, data); errors.Is(err, driver.ErrRecordExists) {
		return e, fmt.Errorf("escalation %s: %w", id, ErrEscalationDecided)
	} else if err != nil {
		return e, fmt.Errorf("decide escalation %s: %w", id, err)
	}
	e.Decision = &d
	return e, nil
}

// Delete removes escalation id and its decision: the escalation first, so
// that no one lists or decides one whose decision is gone.
func (b *Escalations) Delete(ctx context.Context, id string) error {
	rec, decision, err := escalationRecords(id)
	if err != nil {
		return err
	}
	for _, r := range []driver.Record{rec, decision} {
		if err := b.r.DeleteRecord(ctx, r); err != nil {
			return fmt.Errorf("delete escalation %s: %w", id, err)
		}
	}
	return nil
}
