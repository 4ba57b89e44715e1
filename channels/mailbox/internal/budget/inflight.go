package budget

import (
	"context"
	"encoding/json"
	"fmt"
)

// InflightKey is the key under which the keeper keeps, in the agent's
// store (see Books), what the turns under way have cost so far. A turn's
// usage is recorded when it ends; a process killed in the middle of a
// turn (while it waits for a tool or an approval, say) would lose the
// record of the calls it made, which the day's count has. The next
// keeper of the agent records those as entries of their own
// (Entry.CutShort) before its first turn, and clears them.
const InflightKey = "usage-inflight"

// inflight is the stored usage of one turn under way.
type inflight struct {
	MessageID    string `json:"message_id,omitempty"`
	ThreadID     string `json:"thread_id,omitempty"`
	TaskID       string `json:"task_id,omitempty"`
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// recoverInflight records, once, the usage of the turns a previous
// process left unfinished, and clears it (again after a failure to read
// it: until then nothing is saved over it).
func (k *Keeper) recoverInflight(ctx context.Context) {
	if k.cfg.Books == nil {
		return
	}
	k.inflightMu.Lock()
	defer k.inflightMu.Unlock()
	if k.inflightLoaded {
		return
	}
	data, err := k.cfg.Books.LoadState(ctx, InflightKey)
	if err != nil {
		k.cfg.Logger.Warn("the usage of turns cut short could not be read", "key", InflightKey, "err", err)
		return
	}
	var list []inflight
	corrupt := false
	if len(data) > 0 {
		if err := json.Unmarshal(data, &list); err != nil {
			k.cfg.Logger.Warn("the usage of turns cut short is corrupt; dropped", "key", InflightKey, "err", err)
			list, corrupt = nil, true
		}
	}
	for _, f := range list {
		if f.InputTokens+f.OutputTokens <= 0 {
			continue
		}
		k.cfg.Books.RecordUsage(context.WithoutCancel(ctx), Entry{MessageID: f.MessageID, ThreadID: f.ThreadID,
			TaskID: f.TaskID, Model: f.Model, InputTokens: f.InputTokens, OutputTokens: f.OutputTokens, CutShort: true})
	}
	if len(list) > 0 || corrupt {
		if err := k.cfg.Books.SaveState(context.WithoutCancel(ctx), InflightKey, []byte("[]")); err != nil {
			k.cfg.Logger.Warn("the usage of turns cut short not cleared; it would be recorded again", "err", fmt.Errorf("%s: %w", InflightKey, err))
		}
	}
	k.inflightLoaded = true
}

// saveInflight stores what the turns under way have cost so far; a
// failure is logged (only a crash would lose the record).
func (k *Keeper) saveInflight(ctx context.Context) {
	if k.cfg.Books == nil {
		return
	}
	k.inflightMu.Lock()
	defer k.inflightMu.Unlock()
	if !k.inflightLoaded {
		return // the previous process's turns are not recorded yet
	}
	k.mu.Lock()
	list := make([]inflight, 0, len(k.turns))
	for _, st := range k.turns {
		if st.usage.Total() > 0 {
			list = append(list, inflight{MessageID: st.ref.messageID, ThreadID: st.ref.threadID, TaskID: st.ref.taskID,
				Model: st.model, InputTokens: st.usage.InputTokens, OutputTokens: st.usage.OutputTokens})
		}
	}
	k.mu.Unlock()
	data, err := json.Marshal(list)
	if err == nil {
		err = k.cfg.Books.SaveState(context.WithoutCancel(ctx), InflightKey, data)
	}
	if err != nil {
		k.cfg.Logger.Warn("the usage of the turns under way not saved; a crash would lose its record", "err", fmt.Errorf("%s: %w", InflightKey, err))
	}
}
