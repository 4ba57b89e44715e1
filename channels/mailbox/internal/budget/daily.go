package budget

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// StateKey is the key under which the day's token count is kept in the
// agent's store (see Books).
const StateKey = "usage-today"

// dayRecord is the persisted form of the day's count.
type dayRecord struct {
	Day    string `json:"day"` // 2006-01-02, in the clock's location
	Tokens int64  `json:"tokens"`
}

// daily is the agent's count of the day.
type daily struct {
	loaded bool
	rec    dayRecord
}

func dayOf(t time.Time) string { return t.Format(time.DateOnly) }

// roll starts a new count when now is another day.
func (d *daily) roll(now time.Time) {
	if day := dayOf(now); d.rec.Day != day {
		d.rec = dayRecord{Day: day}
	}
}

// refusal says why no call may be made today ("" under the cap).
func (d *daily) refusal(now time.Time, limit int64) string {
	d.roll(now)
	if limit > 0 && d.rec.Tokens >= limit {
		return fmt.Sprintf("daily token cap reached: %d of %d tokens used today (channels.mailbox.budget.dailyTokens); it resets at midnight",
			d.rec.Tokens, limit)
	}
	return ""
}

// add counts n tokens at now and returns the record to save.
func (d *daily) add(now time.Time, n int64) dayRecord {
	d.roll(now)
	d.rec.Tokens = addTokens(d.rec.Tokens, max(n, 0)) // a provider's count is not trusted to be sane
	return d.rec
}

// loadDay reads the day's count from the books once (again after a
// failure).
func (k *Keeper) loadDay(ctx context.Context) error {
	k.mu.Lock()
	loaded := k.day.loaded
	k.mu.Unlock()
	if loaded || k.cfg.Books == nil {
		return nil
	}
	data, err := k.cfg.Books.LoadState(ctx, StateKey)
	if err != nil {
		return fmt.Errorf("load %s: %w", StateKey, err)
	}
	var rec dayRecord
	if len(data) > 0 {
		if err := json.Unmarshal(data, &rec); err != nil {
			k.cfg.Logger.Warn("the day's token count is corrupt; counting from zero", "key", StateKey, "err", err)
			rec = dayRecord{}
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.day.loaded {
		return nil
	}
	k.day.loaded = true
	k.day.roll(k.cfg.Clock.Now())
	if rec.Day == k.day.rec.Day {
		k.day.rec.Tokens += rec.Tokens // what this process counted before the load, plus the stored
	}
	return nil
}

// saveDay stores the day's count; a failure is logged (the count in
// memory still holds). Nothing is stored before the stored count was
// read: it would be overwritten by this process's part of it.
func (k *Keeper) saveDay(ctx context.Context, rec dayRecord) {
	k.mu.Lock()
	loaded := k.day.loaded
	k.mu.Unlock()
	if k.cfg.Books == nil || k.cfg.DailyTokens <= 0 || !loaded {
		return
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = k.cfg.Books.SaveState(context.WithoutCancel(ctx), StateKey, data)
	}
	if err != nil {
		k.cfg.Logger.Warn("the day's token count not saved; a restart would forget it", "err", err)
	}
}
