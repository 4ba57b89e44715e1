package fsstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
	assert.NotContains(t, claimCounts(t, filepath.Join(agentPath(s, "bob", stateDir), claimsName)), file, "no count left behind")
}

// TestClaimLogCountsHandOuts: the claim log lists a message once per
// hand-out while it is not acknowledged, forgets it once it is, and skips
// lines it cannot use (damage, a torn last append) without losing count.
func TestClaimLogCountsHandOuts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	s, _ := openMsgStore(t, func(o *Options) { o.MaxDeliver = 3; o.Now = func() time.Time { return now } })
	m := newMsg("alice", "bob", "slow")
	deliver(t, s, m)
	file := envelope.FileName(m)
	path := filepath.Join(agentPath(s, "bob", stateDir), claimsName)
	in := openTestInbox(t, s, "bob")
	next(t, in)
	require.NoError(t, in.Close()) // stopped without acknowledging
	assert.Equal(t, map[string]int{file: 1}, claimCounts(t, path))
	assert.Equal(t, []string{file}, names(t, agentPath(s, "bob", inboxDir)), "a claim leaves the file where it is")

	in = openTestInbox(t, s, "bob")
	d := next(t, in)
	require.True(t, d.Redelivered, "the second hand-out of maxDeliver 3")
	assert.Equal(t, map[string]int{file: 2}, claimCounts(t, path))
	require.NoError(t, in.Close())
	claims, err := Claims(s.Root(), "bob")
	require.NoError(t, err)
	assert.Equal(t, []Claim{{Name: file, At: now.Local(), HandOuts: 2}}, claims, "what doctor reads")

	// Damage, and an append cut short, do not reset the count.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("../../etc/passwd 1\nnot a name\n\x00\x01\n" + file + "\n" + file + " soon\n../" + file + " 1\n" + file[:5])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	in = openTestInbox(t, s, "bob")
	d = next(t, in)
	require.True(t, d.Redelivered, "the third hand-out")
	assert.Equal(t, map[string]int{file: 3}, claimCounts(t, path), "the log was rewritten without the damage")
	require.NoError(t, in.Ack(t.Context(), d))
	require.NoError(t, in.Close())

	in = openTestInbox(t, s, "bob")
	require.NoError(t, in.Close())
	assert.Empty(t, claimCounts(t, path), "the acknowledged message is forgotten")
	assert.Equal(t, []string{file}, names(t, agentPath(s, "bob", processedDir)))
}

// claimCounts reads the claim log at path.
func claimCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	claims, _, err := readClaimLog(path)
	require.NoError(t, err)
	counts := map[string]int{}
	for name, c := range claims {
		counts[name] = c.n
	}
	return counts
}
