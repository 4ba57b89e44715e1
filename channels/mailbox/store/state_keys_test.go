package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// ListState finds an agent's records by prefix, on the folder and in
// memory alike; DeleteState removes one, and a missing one is no error.
func TestListAndDeleteState(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		be   driver.Backend
	}{{"folder", openFS(t)}, {"memory", memstore.New(memstore.Options{})}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Ctx(t)
			st := store.New(tt.be, nil)
			for _, k := range []string{"a2a-task-2", "a2a-task-1", "sent-tasks"} {
				require.NoError(t, st.SaveState(ctx, "gw", k, []byte(`{}`)))
			}
			keys, err := st.ListState(ctx, "gw", "a2a-task-")
			require.NoError(t, err)
			assert.Equal(t, []string{"a2a-task-1", "a2a-task-2"}, keys)
			all, err := st.ListState(ctx, "gw", "")
			require.NoError(t, err)
			assert.Len(t, all, 3)
			none, err := st.ListState(ctx, "nobody", "")
			require.NoError(t, err)
			assert.Empty(t, none)

			require.NoError(t, st.DeleteState(ctx, "gw", "a2a-task-1"))
			require.NoError(t, st.DeleteState(ctx, "gw", "a2a-task-1"), "gone already: no error")
			keys, err = st.ListState(ctx, "gw", "a2a-task-")
			require.NoError(t, err)
			assert.Equal(t, []string{"a2a-task-2"}, keys)

			_, err = st.ListState(ctx, "../x", "")
			assert.Error(t, err)
			assert.Error(t, st.DeleteState(ctx, "gw", "Bad Key"))
		})
	}
}
