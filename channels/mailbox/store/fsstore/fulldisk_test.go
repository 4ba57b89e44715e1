package fsstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// readOnly reopens f's file read only, so that writes through it fail
// as they would on a full disk, and closes f.
func readOnly(t *testing.T, f *os.File) *os.File {
	t.Helper()
	ro, err := os.Open(f.Name())
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return ro
}

// TestUnwritableClaimLogAndJournal: when neither the claim log nor the
// dedup journal can be written (a full disk), messages are still handed
// out once each and acknowledged (moved to processed/), a copy sent again
// meanwhile is still dropped, and nothing comes back after a restart.
func TestUnwritableClaimLogAndJournal(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	first, second := newMsg("alice", "bob", "1"), newMsg("alice", "bob", "2")
	deliver(t, s, first)
	deliver(t, s, second)
	in := openTestInbox(t, s, "bob")
	in.claims.f = readOnly(t, in.claims.f)
	in.mu.Lock()
	in.journal.f = readOnly(t, in.journal.f)
	in.mu.Unlock()

	for _, m := range []*envelope.Message{first, second} {
		d := next(t, in)
		assert.Equal(t, m.ID, d.Message.ID)
		require.NoError(t, in.Ack(t.Context(), d), "acknowledged without its journal line")
	}
	deliver(t, s, first) // sent again: still known
	got := nextWhenWaiting(t, in)
	events.TakeKind(t, driver.EventDuplicate, nil)
	later := newMsg("alice", "bob", "later")
	deliver(t, s, later)
	d := receive(t, got)
	assert.Equal(t, later.ID, d.Message.ID)
	require.NoError(t, in.Close())
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), 3, "two acknowledged, one duplicate")

	in = openTestInbox(t, s, "bob")
	d = next(t, in)
	assert.Equal(t, later.ID, d.Message.ID, "held when the inbox closed: it comes back, the others do not")
	ack(t, in, d)
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
}

// TestJournalAppendCutShort: after an append cut short, the next id
// starts a line of its own.
func TestJournalAppendCutShort(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), journalName)
	j, err := openJournal(path, 10, false)
	require.NoError(t, err)
	a, b := envelope.NewID(), envelope.NewID()
	_, err = j.f.WriteString(a[:7]) // what a full disk let through
	require.NoError(t, err)
	j.torn = true
	_, err = j.add(b)
	require.NoError(t, err)
	require.NoError(t, j.close())
	j, err = openJournal(path, 10, false)
	require.NoError(t, err)
	defer j.close()
	assert.True(t, j.has(b))
}
