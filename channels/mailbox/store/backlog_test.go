package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Both ways of reading an inbox give the same figures: the folder
// store's own count and list, and the browse of a store without them.
func TestBacklog(t *testing.T) {
	t.Parallel()
	fs, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mb"), NoSync: true, PollInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { fs.Close() })
	for name, be := range map[string]*store.Store{"fs": store.New(fs, nil), "mem": store.New(memstore.New(memstore.Options{}), nil)} {
		ctx := testkit.Ctx(t)
		in, err := be.Backlog(ctx, "coder")
		require.NoError(t, err, name)
		assert.Equal(t, store.Backlog{}, in, "%s: no inbox, nothing waits", name)

		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		for i := range 3 {
			msg := &envelope.Message{ID: envelope.NewID(), Type: envelope.TypeMessage, From: "lead", To: "coder", Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("x")}},
				Timestamp: envelope.NewTime(t0.Add(time.Duration(i) * time.Minute))}
			require.NoError(t, be.Deliver(ctx, msg), name)
		}
		in, err = be.Backlog(ctx, "coder")
		require.NoError(t, err, name)
		assert.Equal(t, 3, in.Depth, name)
		assert.True(t, t0.Equal(in.Oldest), "%s: oldest %v", name, in.Oldest)
	}
}
