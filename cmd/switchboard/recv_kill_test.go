package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// not yet acknowledged when the kill came is printed again, marked
// redelivered; never twice by one process), and in the end every message
// is in processed/, none left behind.
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
	kills, unmarked := 0, 0
	for len(printed) < n {
		recv := s.start("recv", "worker", "--json")
		quota := 1 + rng.IntN(max(2, n/40)) // lines to read before the kill
		run := map[string]bool{}            // printed by this process
		note := func(line string) {
			id, again := printedMessage(t, line)
			require.False(t, run[id], "%s printed twice by one process", id)
			run[id] = true
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
		rest := recv.rest(recv.stdout) // printed before the kill
		for i, l := range rest {
			if i == len(rest)-1 && !json.Valid([]byte(l)) {
				continue // cut by the kill in the middle of a write: never acknowledged, it comes back
			}
			note(l)
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
	assert.Zero(t, unmarked, "printed again without the redelivered mark")
	// What was printed and not acknowledged before the last kill is
	// claimed, and all that is left in inbox/; a clean run takes it back
	// (printing it again, marked redelivered) before it is stopped. One
	// whose acknowledgement the kill cut after its id reached the dedup
	// journal and before its file left inbox/ is dropped instead, unprinted.
	held := heldUnacknowledged(t, s, "worker")
	final := s.start("recv", "worker", "--json")
	final.awaitStderr("listening as worker")
	for range held {
		id, again := printedMessage(t, final.next(final.stdout, "a held message"))
		require.True(t, want[id])
		assert.True(t, again, "%s was held: it comes back redelivered", id)
	}
	final.signal(sigterm)
	assert.Equal(t, 0, final.wait())
	for _, l := range final.rest(final.stdout) {
		require.True(t, want[messageID(t, l)])
	}
	assert.Empty(t, s.msgFiles("worker", "inbox"), "nothing waits")
}

// heldUnacknowledged counts the messages in agent's inbox/ whose ids the
// dedup journal (state/acked.log) does not hold.
func heldUnacknowledged(t *testing.T, s *sandbox, agent string) int {
	t.Helper()
	journal, err := os.ReadFile(filepath.Join(s.root, agent, "state", "acked.log"))
	if !errors.Is(err, fs.ErrNotExist) {
		require.NoError(t, err)
	}
	acked := map[string]bool{}
	for _, id := range strings.Fields(string(journal)) {
		acked[id] = true
	}
	held := 0
	for _, name := range s.msgFiles(agent, "inbox") {
		data, err := os.ReadFile(filepath.Join(s.root, agent, "inbox", name))
		require.NoError(t, err)
		var m struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(data, &m), name)
		if !acked[m.ID] {
			held++
		}
	}
	return held
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
	id, _ := printedMessage(t, line)
	return id
}

// printedMessage returns the mailbox message id of a recv --json line
// and whether it is marked redelivered.
func printedMessage(t *testing.T, line string) (id string, redelivered bool) {
	t.Helper()
	var l struct {
		Mailbox struct {
			MessageID   string `json:"message_id"`
			Redelivered bool   `json:"redelivered"`
		} `json:"mailbox"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &l), "recv line %q", line)
	return l.Mailbox.MessageID, l.Mailbox.Redelivered
}
