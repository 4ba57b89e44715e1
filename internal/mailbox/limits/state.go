package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// StateKey is the StateStore key under which an agent saves its open
// breakers.
const StateKey = "breakers"

// Open is a breaker that is open: sends from By to To fail fast until
// Until.
type Open struct {
	By     string    `json:"by"`
	To     string    `json:"to"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

// record is the saved form of an agent's open breakers.
type record struct {
	Open []Open `json:"open"`
}

// save writes the breakers open now to the guard's state store.
func (g *Guard) save(ctx context.Context) {
	if g.st == nil {
		return
	}
	var rec record
	for _, o := range g.Open() {
		o.By = g.self
		rec.Open = append(rec.Open, o)
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = g.st.SaveState(context.WithoutCancel(ctx), g.self, StateKey, data)
	}
	if err != nil {
		g.log.Warn("breaker state not saved; the agents command will not show it", "err", err)
	}
}

// ReadBreakers returns the breakers the given agents saved that are still
// open at now, by the recipient they protect. An unreadable record is an
// error naming its agent; an agent without one has none open.
func ReadBreakers(ctx context.Context, st store.StateStore, agents []string, now time.Time) (map[string][]Open, error) {
	out := map[string][]Open{}
	for _, a := range agents {
		if envelope.ValidateAgentID(a) != nil {
			continue
		}
		data, err := st.LoadState(ctx, a, StateKey)
		if err != nil {
			return nil, fmt.Errorf("read the breakers of %q: %w", a, err)
		}
		if len(data) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("read the breakers of %q: corrupt record: %w", a, err)
		}
		for _, o := range rec.Open {
			if now.Before(o.Until) {
				o.By = a
				out[o.To] = append(out[o.To], o)
			}
		}
	}
	return out, nil
}
