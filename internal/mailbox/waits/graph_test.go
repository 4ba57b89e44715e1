package waits_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/waits"
)

func TestCycles(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := func(agent, task, sub, on string, at int) waits.Wait {
		return waits.Wait{Agent: agent, Task: task, Subtask: sub, On: on, State: envelope.StatePending, Since: t0.Add(time.Duration(at) * time.Second)}
	}
	g := waits.Graph{Waits: []waits.Wait{
		w("a", "t1", "u1", "b", 1), w("b", "t2", "u2", "a", 5), w("b", "t3", "u3", "a", 2), // a ⇄ b
		w("c", "t4", "u4", "d", 1), w("d", "t5", "u5", "e", 2), w("e", "t6", "u6", "c", 3), // c → d → e → c
		w("f", "t7", "u7", "a", 1), // f waits on a deadlocked agent, not in a cycle
		w("g", "t8", "u8", "g", 4), // an agent waiting on itself
	}}
	cycles := g.Cycles()
	require.Len(t, cycles, 3)
	assert.Equal(t, "a → b → a", cycles[0].String())
	assert.Equal(t, "u3", cycles[0].Waits[1].Subtask, "the oldest wait of b on a")
	assert.Equal(t, "u3", cycles[0].Youngest().Subtask)
	assert.Equal(t, "c → d → e → c", cycles[1].String())
	assert.Equal(t, "u6", cycles[1].Youngest().Subtask)
	assert.Equal(t, "g → g", cycles[2].String())

	assert.Empty(t, waits.Graph{Waits: []waits.Wait{w("a", "t", "u", "b", 1), w("b", "t2", "u2", "c", 1)}}.Cycles())
	assert.Empty(t, waits.Graph{}.Cycles())
}

// Load reads the delegators' records: subtasks of open tasks only; a
// record that does not decode is named, not fatal.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	st := store.New(memstore.New(memstore.Options{}), nil)
	defer st.Close()
	for _, a := range []string{"a", "b", "c"} {
		_, err := st.UpdateCard(ctx, a, func(c *envelope.Card) {})
		require.NoError(t, err)
	}
	put := func(agent string, v any) {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		require.NoError(t, st.SaveState(ctx, agent, waits.RecordKey, data))
	}
	put("a", []map[string]any{
		{"task_id": "u1", "to": "b", "state": "accepted", "sent_at": "2026-01-01T00:00:01Z", "parent_task": "t1"},
		{"task_id": "u0", "to": "b", "state": "pending", "sent_at": "2026-01-01T00:00:00Z"}, // from a chat
		{"task_id": "u9", "to": "b", "state": "completed", "sent_at": "2026-01-01T00:00:00Z", "parent_task": "t1"},
	})
	put("b", []map[string]any{{"task_id": "u2", "to": "a", "state": "pending", "sent_at": "2026-01-01T00:00:02Z", "parent_task": "t2"}})
	require.NoError(t, st.SaveState(ctx, "c", waits.RecordKey, []byte("{garbage")))
	g, problems, err := waits.Load(ctx, st)
	require.NoError(t, err)
	require.Len(t, g.Waits, 2)
	assert.Equal(t, "u1", g.Waits[0].Subtask)
	assert.Equal(t, "u2", g.Waits[1].Subtask)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "c: task records unreadable")
	require.Len(t, g.Cycles(), 1)
	assert.Equal(t, "u2", g.Cycles()[0].Youngest().Subtask)
}
