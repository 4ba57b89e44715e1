package fsstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestTenThousandMessagesFromAnotherProcess has a second process deliver
// 10,000 messages from four senders (one of them sends most) while this
// process receives them: every message arrives exactly once and each
// sender's messages arrive in the order sent. Neither side syncs, to keep
// the run short; durability against a machine crash is not what is tested.
func TestTenThousandMessagesFromAnotherProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process that sends 10,000 messages")
	}
	senders := map[string]int{"big": 7000, "s1": 1000, "s2": 1000, "s3": 1000}
	total := 0
	var spec []string
	for from, n := range senders {
		total += n
		spec = append(spec, from+":"+strconv.Itoa(n))
	}
	require.Equal(t, 10000, total)

	events := testkit.NewEvents()
	root := filepath.Join(t.TempDir(), "mailboxes")
	s, err := Open(Options{Root: root, NoSync: true, PollInterval: time.Second, Observer: events.Observe})
	require.NoError(t, err)
	defer s.Close()
	in := openTestInbox(t, s, "bob")

	start := time.Now()
	sender := startHelper(t, helperRoleSend, s.Root(),
		helperEnvTo+"=bob", helperEnvSenders+"="+strings.Join(spec, ","), helperEnvNoSync+"=1")

	nextSeq := map[string]int{}
	ids := map[string]bool{}
	for range total {
		// Each message within WaitLimit: the limit follows the progress,
		// not a guess of how long 10,000 take on this machine.
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		d, err := in.Next(ctx)
		require.NoError(t, err, "received %d of %d: %v", len(ids), total, nextSeq)
		m := d.Message
		require.Contains(t, senders, m.From)
		seq, err := strconv.Atoi(m.Text())
		require.NoError(t, err)
		require.Equal(t, nextSeq[m.From], seq, "message %d from %s out of order or repeated", seq, m.From)
		nextSeq[m.From]++
		require.False(t, ids[m.ID], "id %s handed out twice", m.ID)
		ids[m.ID] = true
		require.False(t, d.Redelivered)
		require.NoError(t, in.Ack(ctx, d))
		cancel()
	}
	elapsed := time.Since(start)
	out := sender.finish(t)
	assert.Contains(t, out, fmt.Sprintf("sent=%d", total))

	for from, n := range senders {
		assert.Equal(t, n, nextSeq[from], from)
	}
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", tmpDir)), "no staging file left")
	assert.Empty(t, names(t, agentPath(s, "bob", rejectedDir)))
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), total)
	assert.Zero(t, events.CountKind(driver.EventQuarantined))
	assert.Zero(t, events.CountKind(driver.EventDuplicate))
	assert.Equal(t, total, events.CountKind(driver.EventProcessed))
	t.Logf("%d messages from another process received in %s (%.0f/s, process start included)",
		total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
}

// TestNamesHandedOutOnlyOnceTwoScansListThem plays the folder listing that
// broke each sender's order: while files are being created, readdir may
// list a sender's second message without its first. A name is handed out
// only once the scan before listed it too, and never after a name that
// scan did not list, so the first message, listed late, still comes first.
func TestNamesHandedOutOnlyOnceTwoScansListThem(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	in.batch = 2
	assert.Empty(t, in.settled([]string{"2_a"}), "first seen: wait")
	assert.Empty(t, in.settled([]string{"1_a", "2_a"}), "1_a is new and comes first: wait")
	assert.Equal(t, []string{"1_a", "2_a"}, in.settled([]string{"1_a", "2_a", "3_b"}), "listed twice, in order")
	assert.Equal(t, []string{"3_b"}, in.settled([]string{"3_b", "4_c", "5_c"}), "up to the first new name")
	assert.Equal(t, []string{"4_c", "5_c"}, in.settled([]string{"4_c", "5_c", "6_c"}), "at most a batch")
}
