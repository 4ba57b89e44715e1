package fsstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// TestPoisonSetAsideAfterMaxDeliver: a message that kills its receiver
// (here SIGKILL right after the receiving process took it) comes back to
// each new receiver process until it was handed out maxDeliver times;
// then the next process finds it set aside in rejected/ with the reason
// and handles the messages behind it.
func TestPoisonSetAsideAfterMaxDeliver(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	s, _ := openMsgStore(t, func(o *Options) { o.NoSync = false })
	poison := newMsg("alice", "bob", "crashes the receiver")
	later1, later2 := newMsg("alice", "bob", "later 1"), newMsg("carol", "bob", "later 2")
	deliver(t, s, poison)
	deliver(t, s, later1)
	deliver(t, s, later2)

	for i := range DefaultMaxDeliver {
		took := fmt.Sprintf("took %s %t", poison.ID, i > 0)
		h := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=1", helperEnvHold+"=1")
		h.waitLines(t, 1, func(l string) bool { return l == took }, nil)
		require.Equal(t, []string{took}, receiverLines(h.kill(t)), "hand-out %d", i+1)
	}

	last := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=2")
	out := receiverLines(last.finish(t))
	require.Equal(t, []string{"took " + later1.ID + " false", "acked " + later1.ID,
		"took " + later2.ID + " false", "acked " + later2.ID}, out, "the poison is not handed out a 6th time")

	file := envelope.FileName(poison)
	assert.ElementsMatch(t, []string{file, file + reasonSuffix}, names(t, agentPath(s, "bob", rejectedDir)))
	data, err := os.ReadFile(agentPath(s, "bob", rejectedDir, file+reasonSuffix))
	require.NoError(t, err)
	var rec reasonRecord
	require.NoError(t, json.Unmarshal(data, &rec))
	assert.Equal(t, "handed out "+strconv.Itoa(DefaultMaxDeliver)+" times without an acknowledgement (maxDeliver 5)", rec.Reason)
	assert.Equal(t, poison.ID, rec.MessageID)
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.NoFileExists(t, filepath.Join(agentPath(s, "bob", stateDir), attemptsName), "no count left behind")
}

// TestAttemptsForgetAcknowledged: the count of a message handed out again
// and then acknowledged does not linger, and a record that cannot be read
// starts the count afresh.
func TestAttemptsForgetAcknowledged(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.MaxDeliver = 2 })
	m := newMsg("alice", "bob", "slow")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	next(t, in)
	require.NoError(t, in.Close()) // stopped without acknowledging

	path := filepath.Join(agentPath(s, "bob", stateDir), attemptsName)
	in = openTestInbox(t, s, "bob")
	d := next(t, in)
	require.True(t, d.Redelivered, "the second hand-out of maxDeliver 2")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, `{"`+envelope.FileName(m)+`":2}`, string(data))
	require.NoError(t, in.Ack(t.Context(), d))
	require.NoError(t, in.Close())

	// Another message, left claimed twice, with a corrupt record between.
	n := newMsg("alice", "bob", "again")
	deliver(t, s, n)
	in = openTestInbox(t, s, "bob")
	next(t, in)
	require.NoError(t, in.Close())
	require.NoError(t, os.WriteFile(path, []byte("{"), 0o600))
	in = openTestInbox(t, s, "bob")
	d = next(t, in)
	assert.Equal(t, n.ID, d.Message.ID, "handed out again: the count started afresh")
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, `{"`+envelope.FileName(n)+`":2}`, string(data), "the acknowledged message's count is gone")
}
