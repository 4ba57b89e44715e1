package cli

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// stored builds a stored message: id, reply_to, minutes after a fixed time.
func stored(rel, id, replyTo string, minute int) storedMessage {
	ts := time.Date(2026, 4, 26, 10, minute, 0, 0, time.UTC)
	return storedMessage{rel: rel, msg: &envelope.Message{ID: id, ReplyTo: replyTo, From: "a", To: "b",
		Type: envelope.TypeMessage, Timestamp: envelope.NewTime(ts)}}
}

func ids(chain []storedMessage) []string {
	var out []string
	for _, m := range chain {
		out = append(out, m.msg.ID)
	}
	return out
}

func TestThreadOf(t *testing.T) {
	t.Parallel()
	all := []storedMessage{
		stored("b/processed/3.msg.json", "r2", "r1", 3),
		stored("a/inbox/4.msg.json", "other", "", 4),
		stored("b/inbox/1.msg.json", "root", "", 1),
		stored("a/processed/2.msg.json", "r1", "root", 2),
		stored("a/inbox/3.msg.json", "r1b", "root", 3), // a second reply to root, same minute as r2
		stored("b/inbox/5.msg.json", "orphan", "gone", 5),
	}
	for _, id := range []string{"root", "r1", "r2", "r1b"} {
		chain, depths := threadOf(all, id)
		assert.Equal(t, []string{"root", "r1", "r1b", "r2"}, ids(chain), "from %s: by time, then file name", id)
		assert.Equal(t, []int{0, 1, 1, 2}, depths)
	}

	chain, depths := threadOf(all, "orphan")
	assert.Equal(t, []string{"orphan"}, ids(chain), "a missing parent ends the walk up")
	assert.Equal(t, []int{0}, depths)

	chain, _ = threadOf(all, "nope")
	assert.Empty(t, chain)
}

func TestThreadOfCycle(t *testing.T) {
	t.Parallel()
	all := []storedMessage{
		stored("a/inbox/1.msg.json", "x", "y", 1),
		stored("b/inbox/2.msg.json", "y", "x", 2),
	}
	chain, depths := threadOf(all, "y")
	assert.Equal(t, []string{"x", "y"}, ids(chain), "each message once")
	assert.Len(t, depths, 2)
}

func TestThreadOfDuplicateIDs(t *testing.T) {
	t.Parallel()
	// nanobot's ids are msg_<ts>_<from>: two messages in one second share one.
	all := []storedMessage{
		stored("b/inbox/1.msg.json", "msg_1_a", "", 1),
		stored("b/inbox/1b.msg.json", "msg_1_a", "", 1),
		stored("a/inbox/2.msg.json", "reply", "msg_1_a", 2),
	}
	chain, depths := threadOf(all, "reply")
	assert.Equal(t, []string{"msg_1_a", "reply"}, ids(chain), "the earliest namesake is the parent")
	assert.Equal(t, []int{0, 1}, depths)
	assert.Equal(t, "b/inbox/1.msg.json", chain[0].rel)
}

func TestTightenGCLeavesAUserSetGOGC(t *testing.T) {
	// Not parallel: the collector's target is the process's.
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	restore := (&app{}).tightenGC()
	assert.Equal(t, wholeStoreGCPercent, debug.SetGCPercent(wholeStoreGCPercent))
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100))

	restore = (&app{env: Env{Environ: []string{"GOGC=200"}}}).tightenGC()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left alone")
	restore()
	assert.Equal(t, 100, debug.SetGCPercent(100))
}
