package fsstore

import (
	"context"
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
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestSenderKilledAtRandomPoints kills a sending process with SIGKILL 24
// times, each time after it reported a random number of messages, while
// two goroutines in it deliver messages of random size (up to 64 KiB,
// with fsync in every other round), so that the kill lands anywhere in
// Deliver. While it runs and after it died, every entry in the inbox is a
// whole message; every message it reported as sent is there; beyond them
// there is at most the one message per sender whose Deliver was cut short
// (the next in its sequence). The receiver then gets them all in order
// and never quarantines anything, and the staging files the dead senders
// left are never seen in the inbox and are swept once they are old.
func TestSenderKilledAtRandomPoints(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills 24 processes")
	}
	const rounds = 24
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))

	events := testkit.NewEvents()
	root := filepath.Join(t.TempDir(), "mailboxes")
	s, err := Open(Options{Root: root, NoSync: true, PollInterval: time.Second, Observer: events.Observe})
	require.NoError(t, err)
	defer s.Close()
	in := openTestInbox(t, s, "bob")
	inbox, tmp := agentPath(s, "bob", inboxDir), agentPath(s, "bob", tmpDir)

	reportedTotal, cutShort, samples := 0, 0, 0
	for round := range rounds {
		from := []string{fmt.Sprintf("r%02da", round), fmt.Sprintf("r%02db", round)}
		noSync := strconv.Itoa(round % 2)
		h := startHelper(t, helperRoleSend, s.Root(), helperEnvTo+"=bob", helperEnvPad+"=65536",
			helperEnvSenders+"="+from[0]+":0,"+from[1]+":0", helperEnvNoSync+"="+noSync)

		stop, sampled := make(chan struct{}), make(chan sampleResult, 1)
		go func() { sampled <- sampleInbox(inbox, h, stop) }()
		h.waitLines(t, 1+rng.IntN(30), nil, nil)
		out := h.kill(t)
		close(stop)
		res := <-sampled
		require.NoError(t, res.err, "round %d: a partial entry was visible while the sender ran", round)
		samples += res.passes

		reported := parseSent(t, out)
		onDisk := readWholeInbox(t, inbox)
		last := map[string]int{from[0]: -1, from[1]: -1}
		for id, r := range reported {
			require.Contains(t, onDisk, id, "round %d: reported sent, not in the inbox", round)
			last[r.from] = max(last[r.from], r.seq)
		}
		for id, m := range onDisk {
			if _, ok := reported[id]; ok {
				continue
			}
			seq := seqOf(t, m)
			require.Equal(t, last[m.From]+1, seq, "round %d: unreported message %s from %s", round, id, m.From)
			last[m.From] = seq // a second one would fail the check above
			cutShort++
		}
		reportedTotal += len(reported)

		prev := map[string]int{from[0]: -1, from[1]: -1}
		for range onDisk {
			d := next(t, in)
			m := d.Message
			require.Contains(t, onDisk, m.ID)
			require.Greater(t, seqOf(t, m), prev[m.From], "out of order from %s", m.From)
			prev[m.From] = seqOf(t, m)
			ack(t, in, d)
		}
		require.Empty(t, names(t, inbox))
	}
	orphans := names(t, tmp)
	for _, name := range orphans {
		assert.True(t, strings.HasSuffix(name, tmpSuffix), "staging file %s", name)
	}
	assert.Zero(t, events.CountKind(driver.EventQuarantined), "nothing partial was ever claimed")
	assert.Empty(t, names(t, agentPath(s, "bob", rejectedDir)))
	t.Logf("%d rounds: %d messages reported sent, %d more whose sender died before reporting, "+
		"%d staging files orphaned, %d samples of the inbox while sending", rounds, reportedTotal, cutShort, len(orphans), samples)

	// The orphans are swept by the next owner once they are old enough
	// that no living sender can still be writing them.
	require.NoError(t, in.Close())
	later, err := Open(Options{Root: root, NoSync: true, Now: func() time.Time { return time.Now().Add(2 * stagingMaxAge) }})
	require.NoError(t, err)
	defer later.Close()
	again, err := later.OpenInbox(context.Background(), "bob")
	require.NoError(t, err)
	require.NoError(t, again.Close())
	assert.Empty(t, names(t, tmp), "orphaned staging files swept")
}

// sentLine is one "sent <id> <from> <seq>" line of a sender process.
type sentLine struct {
	from string
	seq  int
}

// parseSent reads the ids a sender process reported as delivered.
func parseSent(t *testing.T, lines []string) map[string]sentLine {
	t.Helper()
	out := map[string]sentLine{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 4 || f[0] != "sent" {
			continue
		}
		seq, err := strconv.Atoi(f[3])
		require.NoError(t, err, l)
		out[f[1]] = sentLine{from: f[2], seq: seq}
	}
	return out
}

// seqOf returns the sequence number a sender process put first in the text.
func seqOf(t *testing.T, m *envelope.Message) int {
	t.Helper()
	f := strings.Fields(m.Text())
	require.NotEmpty(t, f, "message %s has no text", m.ID)
	seq, err := strconv.Atoi(f[0])
	require.NoError(t, err)
	return seq
}

// readWholeInbox decodes every entry of inbox, failing the test on any
// entry that is not a whole message file.
func readWholeInbox(t *testing.T, inbox string) map[string]*envelope.Message {
	t.Helper()
	out := map[string]*envelope.Message{}
	for _, name := range names(t, inbox) {
		require.True(t, strings.HasSuffix(name, envelope.MessageSuffix), "not a message name in the inbox: %s", name)
		m, err := readMessage(filepath.Join(inbox, name), DefaultMaxMessageBytes)
		require.NoError(t, err, "inbox file %s", name)
		out[m.ID] = m
	}
	return out
}

type sampleResult struct {
	passes int
	err    error
}

// sampleInbox reads the inbox each time the sender reports a message,
// until stop closes, and reports the first entry that is not a whole
// message file. Files may vanish between listing and reading (nothing
// else may happen).
func sampleInbox(inbox string, h *helper, stop <-chan struct{}) sampleResult {
	for passes := 0; ; passes++ {
		select {
		case <-stop:
			return sampleResult{passes: passes}
		case <-h.changedCh():
		}
		ents, err := os.ReadDir(inbox)
		if err != nil {
			return sampleResult{passes, err}
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), envelope.MessageSuffix) {
				return sampleResult{passes, fmt.Errorf("not a message name in the inbox: %s", e.Name())}
			}
			_, err := readMessage(filepath.Join(inbox, e.Name()), DefaultMaxMessageBytes)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return sampleResult{passes, fmt.Errorf("%s: %w", e.Name(), err)}
			}
		}
	}
}
