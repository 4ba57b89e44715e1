package fsstore

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReceiverKilledMidBatch kills receiving processes that acknowledge
// with AckPipelined (the group commit's batches open while the receiver
// goes on taking messages) with SIGKILL after a random number of steps,
// until one finds the inbox empty. Whatever batch was open, nothing
// reported acknowledged or durable is handed out again, a message comes
// back only if the dead process had not reported it acknowledged, and
// every message ends in processed/ with its id in the dedup journal once.
func TestReceiverKilledMidBatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	const n = 300
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))

	s, _ := openMsgStore(t, func(o *Options) { o.NoSync = false })
	ids := map[string]bool{}
	for i := range n {
		m := newMsg("alice", "bob", strconv.Itoa(i))
		deliver(t, s, m)
		ids[m.ID] = true
	}
	acked := map[string]bool{}   // reported acknowledged (made)
	durable := map[string]bool{} // reported durable
	taken := map[string]bool{}
	rounds := 0
	for done := false; !done; rounds++ {
		require.Less(t, rounds, n, "no progress")
		h := startHelper(t, helperRoleRecv, s.Root(), helperEnvAgent+"=bob", helperEnvCount+"=0", helperEnvPipe+"=1")
		step := func(l string) bool { return strings.HasPrefix(l, "took ") || strings.HasPrefix(l, "acked ") }
		done = !h.waitLines(t, 20+rng.IntN(200), step, func(l string) bool { return l == "idle" })
		inHand := map[string]bool{} // taken by this process and not reported acknowledged
		for _, l := range h.kill(t) {
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			id := f[1]
			switch f[0] {
			case "took":
				require.True(t, ids[id], "round %d: unknown id %s", rounds, id)
				require.False(t, acked[id] || durable[id], "round %d: %s handed out after it was acknowledged", rounds, id)
				if taken[id] {
					require.Equal(t, "true", f[2], "round %d: %s handed out again without the mark", rounds, id)
				}
				taken[id], inHand[id] = true, true
			case "acked":
				// "durable" may come first: the sync that reports it runs
				// beside the loop that prints "acked" once AckPipelined returns.
				require.True(t, inHand[id] || durable[id], "round %d: %s acknowledged but not taken", rounds, id)
				acked[id] = true
				delete(inHand, id)
			case "durable":
				require.True(t, acked[id] || inHand[id], "round %d: %s durable before it was taken", rounds, id)
				durable[id] = true
				delete(inHand, id)
			}
		}
	}
	// A process may die between a move to processed/ and its report:
	// such a message is neither reported acknowledged nor handed out again.
	assert.Equal(t, n, len(taken), "every message was handed out")
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), n)
	journal, err := os.ReadFile(agentPath(s, "bob", stateDir, journalName))
	require.NoError(t, err)
	seen := map[string]int{}
	for _, id := range strings.Fields(string(journal)) {
		seen[id]++
	}
	for id := range ids {
		assert.Equal(t, 1, seen[id], "%s journaled once", id)
	}
	t.Logf("%d receiving processes killed, %d acknowledgements reported durable", rounds, len(durable))
}
