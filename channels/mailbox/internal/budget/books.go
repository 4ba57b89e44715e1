package budget

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
)

// TasksKey is the key under which the task accounts are kept in the
// agent's store (see Books), so that a task handed out again after a
// crash or a restart goes on with what it spent before.
const TasksKey = "task-usage"

// storedAccount is the persisted form of one account.
type storedAccount struct {
	Task string `json:"task"`
	account
}

// loadAccounts reads the task accounts from the books once (again after
// a failure). An account this process opened before the read adds what
// the stored one had spent.
func (k *Keeper) loadAccounts(ctx context.Context) {
	k.mu.Lock()
	loaded := k.tasksLoaded
	k.mu.Unlock()
	if loaded {
		return
	}
	if k.cfg.Books == nil {
		k.mu.Lock()
		k.tasksLoaded = true
		k.mu.Unlock()
		return
	}
	data, err := k.cfg.Books.LoadState(ctx, TasksKey)
	if err != nil {
		k.cfg.Logger.Warn("the tasks' spending could not be read; counting from the calls of this process",
			"key", TasksKey, "err", err)
		return
	}
	var list []storedAccount
	if len(data) > 0 {
		if err := json.Unmarshal(data, &list); err != nil {
			k.cfg.Logger.Warn("the tasks' spending is corrupt; counting from zero", "key", TasksKey, "err", err)
			list = nil
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tasksLoaded {
		return
	}
	k.tasksLoaded = true
	mine := k.accounts
	k.accounts = newAccounts(maxAccounts)
	for _, s := range list { // least recently used first, as saved
		a := s.account
		if s.Task != "" {
			k.accounts.put(s.Task, &a)
		}
	}
	for _, id := range mine.order {
		m := mine.byID[id]
		a := k.accounts.get(id)
		if a == nil {
			k.accounts.put(id, m)
			continue
		}
		a.charge(m.Tokens, m.Cost)
		for sub, b := range m.Handed {
			a.hand(sub, b)
		}
		k.accounts.touch(id)
	}
}

// saveAccounts stores the task accounts; a failure is logged (the
// accounts in memory still hold). Nothing is stored before the stored
// accounts were read: they would be lost. Saves are serialised, and
// each takes its copy while it holds its turn, so that the last write
// is the newest.
func (k *Keeper) saveAccounts(ctx context.Context) {
	if k.cfg.Books == nil {
		return
	}
	k.saveMu.Lock()
	defer k.saveMu.Unlock()
	k.mu.Lock()
	if !k.tasksLoaded {
		k.mu.Unlock()
		return
	}
	list := make([]storedAccount, 0, len(k.accounts.order))
	for _, id := range k.accounts.order {
		a := *k.accounts.get(id)
		a.Handed = maps.Clone(a.Handed)
		a.Settled = append([]string(nil), a.Settled...)
		a.pending = nil
		list = append(list, storedAccount{Task: id, account: a})
	}
	k.mu.Unlock()
	data, err := json.Marshal(list)
	if err == nil {
		err = k.cfg.Books.SaveState(context.WithoutCancel(ctx), TasksKey, data)
	}
	if err != nil {
		k.cfg.Logger.Warn("the tasks' spending not saved; a restart would forget it", "err", fmt.Errorf("%s: %w", TasksKey, err))
	}
}
