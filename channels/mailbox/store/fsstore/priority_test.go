package fsstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func withPriority(m *envelope.Message, p int) *envelope.Message {
	m.Priority = p
	return m
}

// Among pending messages, higher priority is handed out first, and within
// a priority the order of the file names (delivery order) holds.
func TestPriorityOrdersPendingMessages(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	var ids []string
	for _, p := range []int{0, 0, 3, 1, 3, 2, 0} {
		m := withPriority(newMsg("researcher", "coder", "x"), p)
		deliver(t, s, m)
		ids = append(ids, m.ID)
	}
	assert.Len(t, names(t, agentPath(s, "coder", priorityDir)), 4, "a marker for each message above 0")
	in := openTestInbox(t, s, "coder")
	var got []string
	for range ids {
		d := next(t, in)
		got = append(got, d.Message.ID)
		ack(t, in, d)
	}
	assert.Equal(t, []string{ids[2], ids[4], ids[5], ids[3], ids[0], ids[1], ids[6]}, got)
	assert.Empty(t, names(t, agentPath(s, "coder", priorityDir)), "markers are removed as their messages are taken")
}

// A priority message that arrives while a batch of ordinary ones is being
// handed out goes before the rest of the batch.
func TestPriorityOvertakesALoadedBatch(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	var ids []string
	for range 3 {
		m := newMsg("researcher", "coder", "x")
		deliver(t, s, m)
		ids = append(ids, m.ID)
	}
	in := openTestInbox(t, s, "coder")
	d := next(t, in)
	require.Equal(t, ids[0], d.Message.ID)
	urgent := withPriority(newMsg("planner", "coder", "now"), 3)
	deliver(t, s, urgent)
	in.pokePriority() // what the watcher of priority/ does on the marker's arrival
	assert.Equal(t, urgent.ID, next(t, in).Message.ID)
	assert.Equal(t, ids[1], next(t, in).Message.ID)
	assert.Equal(t, ids[2], next(t, in).Message.ID)
}

// A marker whose message is gone, or that names no message, is dropped;
// a message whose marker is lost is still delivered in name order.
func TestPriorityStaleAndLostMarkers(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	a := withPriority(newMsg("researcher", "coder", "a"), 2)
	deliver(t, s, a)
	b := newMsg("researcher", "coder", "b")
	deliver(t, s, b)
	pdir := agentPath(s, "coder", priorityDir)
	writeRaw(t, pdir, markerName("1_gone.msg.json", 3), nil)
	writeRaw(t, pdir, "junk", nil)
	in := openTestInbox(t, s, "coder")
	assert.Equal(t, a.ID, next(t, in).Message.ID)
	assert.Equal(t, b.ID, next(t, in).Message.ID)
	assert.Empty(t, names(t, pdir), "stale and foreign markers are removed")
	assert.Empty(t, names(t, agentPath(s, "coder", rejectedDir)), "nothing quarantined")
}
