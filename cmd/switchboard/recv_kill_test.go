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
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// recvKillMessages is how many messages TestRecvLosesNothingUnderSIGKILL
// drains: 500 in the suite, SWITCHBOARD_RECV_KILL_MESSAGES to change it
// (.ci/run drains 10,000 in a run of its own, without the race detector).
func recvKillMessages(t *testing.T) int {
	if v := os.Getenv("SWITCHBOARD_RECV_KILL_MESSAGES"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "SWITCHBOARD_RECV_KILL_MESSAGES")
		return n
	}
	return 500
}

// TestRecvLosesNothingUnderSIGKILL drains the waiting messages with
// `recv --json`, killing it with SIGKILL again and again at random points
// of its output: every message is printed at least once (one printed and
// not yet acknowledged when the kill came is printed again), and in the
// end every message is in processed/, none left behind.
func TestRecvLosesNothingUnderSIGKILL(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	n := recvKillMessages(t)
	st, err := fsstore.Open(fsstore.Options{Root: s.root, NoSync: true})
	require.NoError(t, err)
	want := map[string]bool{}
	for i := range n {
		m := &envelope.Message{ID: envelope.NewID(), From: fmt.Sprintf("s%d", i%4), To: "worker",
			Type: envelope.TypeMessage, Timestamp: envelope.NewTime(time.Now()), TTL: 3}
		m.Trace = []string{m.From}
		m.Content.Parts = []envelope.Part{envelope.TextPart(strconv.Itoa(i))}
		require.NoError(t, st.Deliver(context.Background(), m))
		want[m.ID] = true
	}
	require.NoError(t, st.Close())

	rng := rand.New(rand.NewPCG(1, uint64(n)))
	printed := map[string]int{}
	kills := 0
	for len(printed) < n {
		recv := s.start("recv", "worker", "--json")
		quota := 1 + rng.IntN(max(2, n/40)) // lines to read before the kill
		for got := 0; got < quota && len(printed) < n; got++ {
			printed[messageID(t, recv.next(recv.stdout, "a message"))]++
		}
		require.NoError(t, recv.cmd.Process.Kill())
		<-recv.done
		kills++
		for _, l := range recv.rest(recv.stdout) { // printed before the kill
			printed[messageID(t, l)]++
		}
	}
	var lost, extra int
	for id := range want {
		if printed[id] == 0 {
			lost++
		}
	}
	for id := range printed {
		if !want[id] {
			extra++
		}
	}
	t.Logf("%d messages, %d SIGKILLs, %d printed twice or more", n, kills, countOver(printed, 1))
	assert.Zero(t, lost, "messages never printed")
	assert.Zero(t, extra, "printed ids that were never sent")
	// What was printed and not acknowledged before the last kill is
	// claimed; a clean run takes it back (printing it again).
	final := s.start("recv", "worker", "--json")
	final.awaitStderr("listening as worker")
	final.signal(sigterm)
	assert.Equal(t, 0, final.wait())
	for _, l := range final.rest(final.stdout) {
		require.True(t, want[messageID(t, l)])
	}
	assert.Empty(t, s.msgFiles("worker", "inbox"), "nothing waits")
}

func countOver(m map[string]int, n int) int {
	c := 0
	for _, v := range m {
		if v > n {
			c++
		}
	}
	return c
}

// messageID returns the mailbox message id of a recv --json line.
func messageID(t *testing.T, line string) string {
	t.Helper()
	var l struct {
		Mailbox struct {
			MessageID string `json:"message_id"`
		} `json:"mailbox"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &l), "recv line %q", line)
	return l.Mailbox.MessageID
}
