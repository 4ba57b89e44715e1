package fsstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// TestClaimLogManyOpenClaims: with more claims open than fit in
// claimLogCompactAt, each message is still handed out once, the log is
// rewritten only now and then (not on every claim, which would make a
// long hold quadratic), lists each open claim once, and a new owner
// redelivers exactly the open ones.
func TestClaimLogManyOpenClaims(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	const n = 1500 // about 110 KiB of claims
	sent := map[string]bool{}
	for range n {
		m := newMsg("alice", "bob", "held")
		deliver(t, s, m)
		sent[m.ID] = true
	}
	path := agentPath(s, "bob", stateDir, claimsName)
	in := openTestInbox(t, s, "bob")
	taken := map[string]bool{}
	var acked []string
	rewrites := 0
	last, err := os.Stat(path)
	require.NoError(t, err)
	for i := range n {
		d := next(t, in)
		require.False(t, taken[d.Message.ID], "%s handed out twice", d.Message.ID)
		taken[d.Message.ID] = true
		if i%10 == 0 { // a few are settled meanwhile
			ack(t, in, d)
			acked = append(acked, envelope.FileName(d.Message))
		}
		in.pokePriority() // priority/ and inbox/ looked at again: nothing new
		select {
		case in.notify <- struct{}{}:
		default:
		}
		fi, err := os.Stat(path)
		require.NoError(t, err)
		if !os.SameFile(fi, last) || fi.Size() < last.Size() {
			rewrites++
		}
		last = fi
	}
	assert.Equal(t, sent, taken)
	t.Logf("%d claims, %d rewrites of the log", n, rewrites)
	assert.Positive(t, rewrites, "the log was compacted")
	assert.LessOrEqual(t, rewrites, 4, "rewrites of the log for %d claims", n)
	counts := claimCounts(t, path)
	for _, name := range acked {
		delete(counts, name) // a settled claim may stay listed until the next rewrite
	}
	assert.Len(t, counts, n-len(acked))
	for name, c := range counts {
		assert.Equal(t, 1, c, name)
	}
	require.NoError(t, in.Close())

	in = openTestInbox(t, s, "bob")
	again := map[string]bool{}
	for range n - len(acked) {
		d := next(t, in)
		require.True(t, d.Redelivered)
		require.False(t, again[d.Message.ID], "%s redelivered twice", d.Message.ID)
		again[d.Message.ID] = true
		ack(t, in, d)
	}
	assert.Len(t, again, n-len(acked))
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
}

// TestClaimedFolderCountsSurviveRewrites: a message an older receiver
// left in claimed/ (one hand-out, with no line in the log) counts its
// hand-outs alike whether or not the log was rewritten since it was
// handed out again: the third hand-out of maxDeliver 3 still goes out.
func TestClaimedFolderCountsSurviveRewrites(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.MaxDeliver = 3 })
	held, later := newMsg("alice", "bob", "held"), newMsg("alice", "bob", "later")
	deliver(t, s, held)
	deliver(t, s, later)
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", claimedDir), 0o700))
	file := envelope.FileName(held)
	require.NoError(t, os.Rename(agentPath(s, "bob", inboxDir, file), agentPath(s, "bob", claimedDir, file)))

	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	require.Equal(t, held.ID, d.Message.ID)
	require.True(t, d.Redelivered, "the second hand-out")
	d = next(t, in) // recovery ended: the log was rewritten
	require.Equal(t, later.ID, d.Message.ID)
	ack(t, in, d)
	require.NoError(t, in.Close())

	in = openTestInbox(t, s, "bob")
	d = next(t, in)
	assert.Equal(t, held.ID, d.Message.ID, "the third hand-out")
	assert.True(t, d.Redelivered)
	ack(t, in, d)
	assert.Zero(t, events.CountKind(driver.EventQuarantined))
}

// TestMaxDeliverAcrossCompactions: a message held while the log is
// compacted (past claimLogCompactAt, by the messages handled behind it)
// keeps its count: it is set aside after exactly MaxDeliver hand-outs.
func TestMaxDeliverAcrossCompactions(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.MaxDeliver = 2 })
	poison := newMsg("alice", "bob", "poison")
	deliver(t, s, poison)
	path := agentPath(s, "bob", stateDir, claimsName)
	const behind = 1000 // about 75 KiB of claims
	for round := range 2 {
		for range behind {
			deliver(t, s, newMsg("carol", "bob", "behind"))
		}
		in := openTestInbox(t, s, "bob")
		d := next(t, in)
		require.Equal(t, poison.ID, d.Message.ID, "hand-out %d", round+1)
		require.Equal(t, round > 0, d.Redelivered)
		for range behind {
			ack(t, in, next(t, in))
		}
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Less(t, fi.Size(), int64(claimLogCompactAt), "the log was compacted")
		require.NoError(t, in.close(false)) // crashed on the poison: not acknowledged
		assert.Equal(t, round+1, claimCounts(t, path)[envelope.FileName(poison)])
	}
	in := openTestInbox(t, s, "bob")
	got := nextWhenWaiting(t, in)
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, poison.ID, ev.MessageID)
	assert.Contains(t, ev.Reason, "handed out 2 times")
	last := newMsg("alice", "bob", "last")
	deliver(t, s, last)
	assert.Equal(t, last.ID, receive(t, got).Message.ID)
}

// TestClaimLogReleaseLines: a release line takes one hand-out of its
// claim off the count, never makes a claim of its own, survives a
// rewrite, and leaves the message claimed for the views.
func TestClaimLogReleaseLines(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1700000000000)
	var b []byte
	b = appendClaim(b, "1_a_x.msg.json", at)
	b = appendRelease(b, "1_a_x.msg.json", at)
	b = appendClaim(b, "1_a_x.msg.json", at)
	b = appendRelease(b, "2_a_y.msg.json", at) // releases nothing it claimed
	b = appendClaim(b, "3_a_z w.msg.json", at)
	b = appendRelease(b, "3_a_z w.msg.json", at)
	b = appendRelease(b, "3_a_z w.msg.json", at) // never below no hand-out
	assert.Contains(t, string(b), "1_a_x.msg.json 1700000000000 released\n")
	got := parseClaims(b)
	assert.Equal(t, map[string]claimed{
		"1_a_x.msg.json":   {n: 2, released: 1, at: at},
		"3_a_z w.msg.json": {n: 1, released: 1, at: at},
	}, got)
	assert.Equal(t, 1, got["1_a_x.msg.json"].counted())
	assert.Equal(t, 0, got["3_a_z w.msg.json"].counted())

	path := filepath.Join(t.TempDir(), claimsName)
	l, err := openClaimLog(path, false)
	require.NoError(t, err)
	defer l.close()
	require.NoError(t, l.rewrite(got, false))
	again, _, err := readClaimLog(path)
	require.NoError(t, err)
	assert.Equal(t, got, again, "a rewrite keeps the releases")
}

// TestCleanCloseReleasesAndACrashCounts: a message held across a clean
// Close comes back redelivered without its hand-out counted; one held
// across a crash counts it.
func TestCleanCloseReleasesAndACrashCounts(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.MaxDeliver = 2 })
	m := newMsg("alice", "bob", "held")
	deliver(t, s, m)
	path := agentPath(s, "bob", stateDir, claimsName)
	counted := func() int {
		c, _, err := readClaimLog(path)
		require.NoError(t, err)
		return c[envelope.FileName(m)].counted()
	}
	for range 4 {
		in := openTestInbox(t, s, "bob")
		require.Equal(t, m.ID, next(t, in).Message.ID)
		require.NoError(t, in.Close())
		assert.Equal(t, 0, counted(), "a clean stop counts nothing")
	}
	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	require.Equal(t, m.ID, d.Message.ID)
	assert.True(t, d.Redelivered)
	require.NoError(t, in.close(false))
	assert.Equal(t, 1, counted(), "a crash counts its hand-out")
	claims, err := Claims(s.root, "bob")
	require.NoError(t, err)
	require.Len(t, claims, 1, "the views show it claimed")
	assert.Equal(t, 5, claims[0].HandOuts)
}
