package fsstore

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestReceiverKilledBeforeAck kills a receiving process with SIGKILL after
// it took a message and before it acknowledged it. The next process to
// open the inbox (the dead one's lock went with it) gets that message
// first, marked redelivered, then the rest; and a retried send of any
// message acknowledged by either process is never handed out again, in
// a third process.
func TestReceiverKilledBeforeAck(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	s, events := openMsgStore(t, func(o *Options) { o.NoSync = false })
	var msgs []*envelope.Message
	for i := range 5 {
		m := newMsg("alice", "bob", strconv.Itoa(i))
		deliver(t, s, m)
		msgs = append(msgs, m)
	}
	took := func(i int, again bool) string { return "took " + msgs[i].ID + " " + strconv.FormatBool(again) }
	acked := func(i int) string { return "acked " + msgs[i].ID }
	file := func(i int) string { return envelope.FileName(msgs[i]) }

	first := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=3", helperEnvHold+"=1")
	first.waitLines(t, 1, func(l string) bool { return l == took(2, false) }, nil)
	out := receiverLines(first.kill(t))
	require.Equal(t, []string{took(0, false), acked(0), took(1, false), acked(1), took(2, false)}, out)
	assert.Contains(t, claimCounts(t, agentPath(s, "bob", stateDir, claimsName)), file(2), "held when it died")
	assert.ElementsMatch(t, []string{file(0), file(1)}, names(t, agentPath(s, "bob", processedDir)))
	assert.ElementsMatch(t, []string{file(2), file(3), file(4)}, names(t, agentPath(s, "bob", inboxDir)))

	second := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=3")
	out = receiverLines(second.finish(t))
	require.Equal(t, []string{took(2, true), acked(2), took(3, false), acked(3), took(4, false), acked(4)}, out)

	// Every message is sent again, as a sender that never learnt of its
	// success would; then one new message. Only the new one is handed out.
	for _, m := range msgs {
		deliver(t, s, m)
	}
	fresh := newMsg("zed", "bob", "fresh")
	deliver(t, s, fresh)
	third := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=1")
	out = receiverLines(third.finish(t))
	require.Equal(t, []string{"took " + fresh.ID + " false", "acked " + fresh.ID}, out)

	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), 11, "5 handled, 5 retried copies, 1 fresh")
	journal, err := os.ReadFile(agentPath(s, "bob", stateDir, journalName))
	require.NoError(t, err)
	var want []string
	for _, m := range append(msgs, fresh) {
		want = append(want, m.ID)
	}
	assert.Equal(t, want, strings.Fields(string(journal)))

	// And this process, opening the inbox last, finds nothing left over.
	in := openTestInbox(t, s, "bob")
	got := nextWhenWaiting(t, in)
	last := newMsg("zed", "bob", "last")
	deliver(t, s, last)
	assert.Equal(t, last.ID, receive(t, got).Message.ID)
	assert.Zero(t, events.CountKind(driver.EventQuarantined))
}

// TestReceiverKilledAtRandomPoints lets receiving processes work through
// 80 messages from two senders, killing each with SIGKILL after a random
// number of steps, until one finds the inbox empty. Across all of them
// every message is taken, in each sender's order; a message is handed out
// again only by the next process, first and marked redelivered, and only
// if the dead process held it (took it and did not report it acknowledged,
// or died before reporting it taken); and every message ends in
// processed/.
func TestReceiverKilledAtRandomPoints(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	const n = 80
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))

	s, _ := openMsgStore(t, func(o *Options) { o.NoSync = false })
	seqs := map[string]int{} // id -> sequence number within its sender
	from := map[string]string{}
	for i := range n {
		m := newMsg([]string{"alice", "carol"}[i%2], "bob", strconv.Itoa(i/2))
		deliver(t, s, m)
		seqs[m.ID], from[m.ID] = i/2, m.From
	}

	taken := map[string]int{}
	acked := map[string]bool{}
	lastSeq := map[string]int{"alice": -1, "carol": -1}
	held := "" // taken and not reported acknowledged by the process that died
	redelivered, rounds := 0, 0
	for done := false; !done; rounds++ {
		require.Less(t, rounds, n, "no progress")
		h := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=0")
		step := func(l string) bool { return strings.HasPrefix(l, "took ") || strings.HasPrefix(l, "acked ") }
		done = !h.waitLines(t, 1+rng.IntN(20), step, func(l string) bool { return l == "idle" })
		current := ""
		for i, l := range receiverLines(h.kill(t)) {
			f := strings.Fields(l)
			switch f[0] {
			case "took":
				id, again := f[1], f[2] == "true"
				require.Contains(t, seqs, id)
				require.False(t, acked[id], "round %d: %s handed out after it was acknowledged", rounds, id)
				if again {
					require.Zero(t, i, "round %d: a redelivery comes first", rounds)
					require.True(t, id == held || taken[id] == 0,
						"round %d: %s redelivered, but the dead process held %q", rounds, id, held)
					redelivered++
				} else {
					require.Zero(t, taken[id], "round %d: %s handed out again without the mark", rounds, id)
				}
				if taken[id] == 0 {
					require.Greater(t, seqs[id], lastSeq[from[id]], "round %d: out of order", rounds)
					lastSeq[from[id]] = seqs[id]
				}
				taken[id]++
				current = id
			case "acked":
				require.Equal(t, current, f[1])
				acked[current], current = true, ""
			}
		}
		held = current
	}
	assert.Len(t, taken, n, "every message was handed out")
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", rejectedDir)))
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), n)
	in := openTestInbox(t, s, "bob") // and nothing is left to hand out
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	waiting := waitingCh(in)
	go func() {
		<-waiting
		cancel()
	}()
	_, err := in.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	t.Logf("%d receiving processes killed, %d messages handed out again", rounds, redelivered)
}

// receiverLines keeps the lines of a receiver process that report steps.
func receiverLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "took ") || strings.HasPrefix(l, "acked ") {
			out = append(out, l)
		}
	}
	return out
}

// waitingCh returns a channel closed when in's Next first waits for a
// new message. Set it before calling Next.
func waitingCh(in *Inbox) <-chan struct{} {
	ch := make(chan struct{})
	var once bool
	in.onWait = func() {
		if !once {
			once = true
			close(ch)
		}
	}
	return ch
}
