package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Issue 25: on NATS, `recv` killed again and again set innocent messages
// aside (each kill counted up to 32 messages pulled ahead as handed out)
// and printed some again without the redelivered mark. recv drains 300
// messages (SWITCHBOARD_RECV_KILL_NATS_MESSAGES to change it) and is
// killed with SIGKILL at random points of its output, far more often than
// maxDeliver (5): every message is printed, none is set aside, and every
// one printed again is marked redelivered.
func TestNATSRecvKilledSetsNothingAside(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	n := 300
	if v := os.Getenv("SWITCHBOARD_RECV_KILL_NATS_MESSAGES"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, "SWITCHBOARD_RECV_KILL_NATS_MESSAGES")
	}
	st := w.open()
	want := map[string]bool{}
	for i := range n {
		m := &envelope.Message{ID: envelope.NewID(), From: fmt.Sprintf("s%d", i%4), To: "worker",
			Type: envelope.TypeMessage, Timestamp: envelope.NewTime(time.Now()), TTL: 3}
		m.Trace = []string{m.From}
		m.Content.Parts = []envelope.Part{envelope.TextPart(strconv.Itoa(i))}
		require.NoError(t, st.Deliver(context.Background(), m))
		want[m.ID] = true
	}

	rng := rand.New(rand.NewPCG(2, uint64(n)))
	printed := map[string]int{}
	kills, unmarked := 0, 0
	for len(printed) < n {
		recv := w.start("recv", "worker", "--json")
		quota := 1 + rng.IntN(n/40)
		note := func(line string) {
			id, again := printedMessage(t, line)
			if printed[id] > 0 && !again {
				unmarked++
			}
			printed[id]++
		}
		for got := 0; got < quota && len(printed) < n; got++ {
			note(recv.next(recv.stdout, "a message"))
		}
		require.NoError(t, recv.cmd.Process.Kill())
		<-recv.done
		kills++
		rest := recv.rest(recv.stdout)
		for i, l := range rest {
			if i == len(rest)-1 && !json.Valid([]byte(l)) {
				continue // cut by the kill: never acknowledged, it comes back
			}
			note(l)
		}
	}
	lost := 0
	for id := range want {
		if printed[id] == 0 {
			lost++
		}
	}
	t.Logf("%d messages, %d SIGKILLs, %d printed twice or more", n, kills, countOver(printed, 1))
	assert.Greater(t, kills, 5, "killed more often than maxDeliver")
	assert.Zero(t, lost, "messages never printed")
	assert.Zero(t, unmarked, "printed again without the redelivered mark")
	aside, err := st.SetAside(context.Background(), "worker")
	require.NoError(t, err)
	assert.Empty(t, aside, "nothing set aside")
}
