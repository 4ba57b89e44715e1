package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// An approval file that decodes but holds no approval (null, {}, a
// record without its agent) is refused on read and skipped when listing,
// beside a record that is not JSON: none is shown as a waiting approval of
// no agent. The files are the folder store's: _approvals/<id>.json.
func TestApprovalRecordThatIsNoApprovalIsSkipped(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	fs, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	require.NoError(t, err)
	s := store.New(fs, nil).Approvals()
	defer fs.Close()
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	good := agent.Approval{ID: envelope.NewID(), Agent: "bob", Kind: "tool", Action: "run tool x",
		Created: now, Deadline: now.Add(time.Minute)}
	require.NoError(t, s.PutApproval(ctx, good))
	dir := filepath.Join(root, "_approvals")
	require.FileExists(t, filepath.Join(dir, good.ID+".json"), "where the folder store keeps an approval")
	bad := map[string]string{"null": "null", "empty": "{}", "no agent": `{"kind":"tool","created":"2026-05-01T12:00:00Z","deadline":"2026-05-01T12:01:00Z"}`,
		"not json": `{"id":`}
	ids := map[string]string{}
	for name, data := range bad {
		id := envelope.NewID()
		ids[name] = id
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), []byte(data), 0o600))
	}
	for name, id := range ids {
		_, err := s.GetApproval(ctx, id)
		assert.Error(t, err, name)
		if name != "not json" {
			assert.ErrorIs(t, err, agent.ErrBadApproval, name)
		}
	}
	list, err := s.ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "only the real approval is listed")
	assert.Equal(t, good.ID, list[0].ID)
}
