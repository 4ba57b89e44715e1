package budget

import (
	"context"
	"log/slog"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/clock"
)

// Entry is one record of usage: what a turn (or a task judgement) cost.
type Entry struct {
	// MessageID, ThreadID and TaskID name the message the turn answered
	// (empty for a judgement).
	MessageID, ThreadID, TaskID string
	// Model is the model that answered.
	Model string
	// InputTokens and OutputTokens are the tokens of all its calls.
	InputTokens, OutputTokens int64
	// Judgement marks the usage of a task judgement.
	Judgement bool
	// CutShort marks the usage of a turn that never ended: its process
	// stopped (crashed, was killed) in the middle of it (see InflightKey).
	CutShort bool
}

// Books is where a Keeper keeps its accounts; the mailbox channel keeps them
// in its store (the audit log and the agent's state records).
type Books interface {
	// RecordUsage appends a usage entry to the audit log; a failure is
	// the books' to report.
	RecordUsage(ctx context.Context, e Entry)
	// LoadState returns the agent's record under key (nil when none).
	LoadState(ctx context.Context, key string) ([]byte, error)
	// SaveState replaces the agent's record under key.
	SaveState(ctx context.Context, key string, data []byte) error
}

// Config are the bounds of a Keeper; zero values set none.
type Config struct {
	// TaskTokens and TaskCost are the budget of a task delegated from a
	// conversation that has none of its own (a user's chat).
	TaskTokens int64
	TaskCost   float64
	// DailyTokens caps the tokens this agent spends per day.
	DailyTokens int64
	// InputPrice and OutputPrice are the cost of a million input and
	// output tokens, for budgets that bound the cost; without them a
	// cost bound is not counted.
	InputPrice, OutputPrice float64
	// Clock tells the day (default clock.Real).
	Clock clock.Clock
	// Books records usage and keeps the day's count across restarts (nil:
	// no record, and a restart starts the day's count at zero).
	Books Books
	// Logger receives the keeper's warnings (nil discards).
	Logger *slog.Logger
}

// Keeper is the budget Hook. Create it with New.
type Keeper struct {
	agent.NopHook
	cfg Config

	mu          sync.Mutex
	turns       map[*agent.Turn]*turnState
	accounts    accounts
	tasksLoaded bool // the stored accounts were read (books.go)
	day         daily
	seq         int        // numbers the budgets being handed out (Hand)
	saveMu      sync.Mutex // serialises saveAccounts
	refused     counters
	// inflightMu serialises the reads and writes of InflightKey;
	// inflightLoaded says the previous process's record was handled.
	inflightMu     sync.Mutex
	inflightLoaded bool
}

// turnState is what the keeper knows of a running turn.
type turnState struct {
	task  string // the budgeted task the turn works on ("" when none)
	model string // the model that answered last
	ref   ref
	usage agent.Usage // what its calls cost so far (see InflightKey)
}

// New returns a keeper with cfg's bounds.
func New(cfg Config) *Keeper {
	cfg.Clock = clock.Or(cfg.Clock)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Keeper{cfg: cfg, turns: map[*agent.Turn]*turnState{}, accounts: newAccounts(maxAccounts)}
}

var _ agent.Hook = (*Keeper)(nil)

// Turn implements agent.Hook: a turn that works on a budgeted task is
// charged to it; its usage is recorded when it ends.
func (k *Keeper) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	ref := refOf(t.Inbound)
	st := &turnState{ref: ref}
	k.loadAccounts(ctx)
	k.recoverInflight(ctx)
	k.mu.Lock()
	if ref.budget.Bounded() {
		k.accounts.open(ref.account, *ref.budget)
	}
	if ref.account != "" && k.accounts.get(ref.account) != nil {
		st.task = ref.account
		k.accounts.touch(ref.account)
	}
	k.turns[t] = st
	k.mu.Unlock()
	return ctx, func(_ error, u agent.Usage) {
		k.mu.Lock()
		model, spent := st.model, st.usage.Total() > 0
		k.mu.Unlock()
		if u.Total() > 0 && k.cfg.Books != nil {
			k.cfg.Books.RecordUsage(context.WithoutCancel(ctx), Entry{
				MessageID: ref.messageID, ThreadID: ref.threadID, TaskID: ref.taskID,
				Model: model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens})
		}
		k.mu.Lock()
		delete(k.turns, t)
		k.mu.Unlock()
		if spent {
			k.saveInflight(ctx) // recorded: no longer under way
		}
	}
}

// Chat implements agent.Hook: it refuses the call when the day's cap
// is reached or the turn's task has spent its budget, and charges the
// call's usage to both when it answers.
func (k *Keeper) Chat(ctx context.Context, t *agent.Turn, req *agent.Request) (context.Context, func(*agent.Response, error), error) {
	if err := k.loadDay(ctx); err != nil {
		k.cfg.Logger.Warn("the day's token count could not be read; counting from the calls of this process", "err", err)
	}
	k.mu.Lock()
	st := k.turns[t]
	var acc *account
	if st != nil && st.task != "" {
		acc = k.accounts.get(st.task)
	}
	refusal, count := k.day.refusal(k.cfg.Clock.Now(), k.cfg.DailyTokens), &k.refused.daily
	if refusal == "" && acc != nil {
		refusal, count = acc.refusal(), &k.refused.task
	}
	k.mu.Unlock()
	if refusal != "" {
		count.Add(1)
		return ctx, func(*agent.Response, error) {}, &agent.TaskFailure{Reason: refusal}
	}
	return ctx, func(resp *agent.Response, _ error) {
		if resp == nil {
			return
		}
		k.charge(ctx, st, acc, resp, req.Model)
	}, nil
}

// charge adds an answered call's usage to the day, the task's account
// and the turn; a task judgement's (no turn) is recorded on its own.
func (k *Keeper) charge(ctx context.Context, st *turnState, acc *account, resp *agent.Response, asked string) {
	u := resp.Usage
	model := resp.Model
	if model == "" {
		model = asked
	}
	k.mu.Lock()
	saved := k.day.add(k.cfg.Clock.Now(), u.Total())
	if acc != nil {
		acc.charge(u.Total(), k.cost(u))
	}
	if st != nil {
		st.model = model
		st.usage = st.usage.Add(u)
	}
	k.mu.Unlock()
	if st != nil && u.Total() > 0 {
		k.saveInflight(ctx)
	}
	k.saveDay(ctx, saved)
	if acc != nil && u.Total() > 0 {
		k.saveAccounts(ctx)
	}
	if st == nil && u.Total() > 0 && k.cfg.Books != nil {
		k.cfg.Books.RecordUsage(context.WithoutCancel(ctx), Entry{
			Judgement: true, Model: model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens})
	}
}

// cost is what u costs at the configured prices.
func (k *Keeper) cost(u agent.Usage) float64 {
	return costOf(u, k.cfg.InputPrice, k.cfg.OutputPrice)
}
