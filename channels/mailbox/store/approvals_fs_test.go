package store_test

import (
	"context"
	"encoding/json"
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

// The records the facade keeps on the folder store are the files
// docs/format.md names: an agent's record <agent>/state/<key>.json, an
// approval _approvals/<id>.json and its decision
// _approvals/<id>.decision.json, as JSON, mode 0600 in 0700 folders.
// Files written so by hand (by an older version) read back as approvals.
func TestRecordFilesOfTheFolderStore(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	fs, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	require.NoError(t, err)
	defer fs.Close()
	st := store.New(fs, nil)
	ctx := context.Background()

	require.NoError(t, st.SaveState(ctx, "bob", "sent-tasks", []byte(`[1]`)))
	data, err := os.ReadFile(filepath.Join(root, "bob", "state", "sent-tasks.json"))
	require.NoError(t, err)
	assert.Equal(t, `[1]`, string(data))

	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := agent.Approval{ID: envelope.NewID(), Agent: "bob", Kind: "tool", Action: "run tool x", Created: now, Deadline: now.Add(time.Minute)}
	require.NoError(t, st.Approvals().PutApproval(ctx, a))
	d := agent.Decision{Allow: true, By: agent.Operator, Time: now}
	_, err = st.Approvals().DecideApproval(ctx, a.ID, d)
	require.NoError(t, err)
	dir := filepath.Join(root, "_approvals")
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	for name, want := range map[string]any{a.ID + ".json": a, a.ID + ".decision.json": d} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		raw, err := json.Marshal(want)
		require.NoError(t, err)
		assert.JSONEq(t, string(raw), string(data), name)
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), name)
	}

	old := agent.Approval{ID: envelope.NewID(), Agent: "carol", Kind: "task", Action: "work on a task from lead",
		Created: now.Add(-time.Minute), Deadline: now.Add(time.Hour)}
	raw, err := json.Marshal(old)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, old.ID+".json"), raw, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, old.ID+".decision.json"),
		[]byte(`{"allow":false,"by":"operator","time":"2026-05-01T12:00:00Z"}`), 0o600))
	list, err := st.Approvals().ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, old.ID, list[0].ID, "oldest first")
	require.NotNil(t, list[0].Decision)
	assert.False(t, list[0].Decision.Allow)

	require.NoError(t, st.Approvals().DeleteApproval(ctx, old.ID))
	for _, name := range []string{old.ID + ".json", old.ID + ".decision.json"} {
		assert.NoFileExists(t, filepath.Join(dir, name))
	}
}
