package channels_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestJournalKeepsWhatIsNotFinished(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j", "feishu.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	a, ok, err := j.Add(bus.InboundMessage{Channel: "feishu", ChatID: "c1", Content: "first", ID: "om_1"})
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = j.Add(bus.InboundMessage{Channel: "feishu", ChatID: "c1", Content: "first", ID: "om_1"})
	require.NoError(t, err)
	assert.False(t, ok, "a retry of a message in hand is not taken twice")
	b, _, err := j.Add(bus.InboundMessage{Channel: "feishu", ChatID: "c1", Content: "second"})
	require.NoError(t, err)
	assert.NotEmpty(t, b.ID, "an id is given to a message without one")
	c, _, err := j.Add(bus.InboundMessage{Channel: "feishu", ChatID: "c2", Content: "third", ID: "om_3"})
	require.NoError(t, err)
	a.Done()
	a.Done() // harmless
	require.NoError(t, j.Drop(c.ID))
	require.NoError(t, j.Close()) // a crash would keep the same file

	again, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer again.Close()
	pending := again.Pending()
	require.Len(t, pending, 1)
	assert.Equal(t, "second", pending[0].Content)
	assert.Equal(t, b.ID, pending[0].ID)
	assert.True(t, pending[0].Redelivered)
	pending[0].Done()
	assert.Empty(t, again.Pending())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "first", "opening compacts the file")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

func TestJournalSkipsATornLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	_, _, err = j.Add(bus.InboundMessage{Content: "kept", ID: "1"})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(`{"op":"in","id":"2","msg":{"conte`) // the crash came mid-write
	require.NoError(t, err)
	require.NoError(t, f.Close())
	again, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer again.Close()
	pending := again.Pending()
	require.Len(t, pending, 1)
	assert.Equal(t, "kept", pending[0].Content)
	_, ok, err := again.Add(bus.InboundMessage{Content: "next", ID: "3"})
	require.NoError(t, err)
	assert.True(t, ok)
	data, _ := os.ReadFile(path)
	assert.False(t, strings.Contains(string(data), `"conte`+"\n"), "the torn line is gone")
}

// A channel with a journal hands a message over only once it is recorded,
// and a restarted one hands over again what was not finished.
func TestBaseWithJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	b := bus.New(4)
	base := channels.NewBase("feishu", []string{"*"}, b, nil)
	base.UseJournal(j)
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "u", ChatID: "c", Content: "hi", ID: "om_1"}))
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "u", ChatID: "c", Content: "hi", ID: "om_1"}))
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Zero(t, b.InboundDepth(), "the retry was not handed over")
	require.NoError(t, j.Close()) // stopped before the turn finished

	j2, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer j2.Close()
	b2 := bus.New(4)
	base2 := channels.NewBase("feishu", []string{"*"}, b2, nil)
	base2.UseJournal(j2)
	n, err := base2.Resume(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	again, err := b2.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, in.ID, again.ID)
	assert.True(t, again.Redelivered)
	again.Done()
	n, err = base2.Resume(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "finished: nothing to hand over again")
}

// A message finished is remembered across restarts: a platform's late
// retry of its event is not taken again. A dropped one is taken again.
func TestJournalRemembersWhatWasFinished(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	done, ok, err := j.Add(bus.InboundMessage{Content: "answered", ID: "om_1"})
	require.NoError(t, err)
	require.True(t, ok)
	done.Done()
	_, ok, err = j.Add(bus.InboundMessage{Content: "answered", ID: "om_1"})
	require.NoError(t, err)
	assert.False(t, ok, "a retry after the answer is a duplicate")
	_, ok, err = j.Add(bus.InboundMessage{Content: "refused by the bus", ID: "om_2"})
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, j.Drop("om_2"))
	assert.False(t, j.Seen("om_2"), "dropped: forgotten")
	require.NoError(t, j.Close())

	again, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer again.Close()
	assert.True(t, again.Seen("om_1"), "remembered across the restart")
	assert.Empty(t, again.Pending())
	_, ok, err = again.Add(bus.InboundMessage{Content: "answered", ID: "om_1"})
	require.NoError(t, err)
	assert.False(t, ok, "a retry after a restart is a duplicate")
	_, ok, err = again.Add(bus.InboundMessage{Content: "sent again", ID: "om_2"})
	require.NoError(t, err)
	assert.True(t, ok, "a dropped message is taken when it comes again")
}

// Finished ids older than DedupWindow are forgotten when the journal is
// opened; journals written before ids were timed count as finished now.
func TestJournalForgetsOldFinishedIDs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	now := time.Now()
	lines := fmt.Sprintf(`{"op":"done","id":"old","at":%d}
{"op":"done","id":"recent","at":%d}
{"op":"done","id":"untimed"}
`, now.Add(-channels.DedupWindow-time.Hour).UnixMilli(), now.Add(-time.Hour).UnixMilli())
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o600))
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	assert.False(t, j.Seen("old"))
	assert.True(t, j.Seen("recent"))
	assert.True(t, j.Seen("untimed"))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"old"`, "compacted away")
}

// A long run compacts the file as it goes, keeping what it must.
func TestJournalCompactsWhileRunning(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	j.SetCompactAfter(20)
	_, _, err = j.Add(bus.InboundMessage{Content: "still open", ID: "keep"})
	require.NoError(t, err)
	for i := range 30 {
		m, _, err := j.Add(bus.InboundMessage{Content: strings.Repeat("x", 100), ID: fmt.Sprintf("m%d", i)})
		require.NoError(t, err)
		m.Done()
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Less(t, strings.Count(string(data), `"op":"in"`), 15, "finished messages' lines are compacted away")
	require.NoError(t, j.Close())

	again, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer again.Close()
	for i := range 30 {
		assert.True(t, again.Seen(fmt.Sprintf("m%d", i)), "m%d remembered", i)
	}
	pending := again.Pending()
	require.Len(t, pending, 1)
	assert.Equal(t, "still open", pending[0].Content)
}

// Issue 25: an event re-sent after a restart is answered once.
func TestBaseTakesARetryAfterARestartAsADuplicate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	msg := bus.InboundMessage{SenderID: "u", ChatID: "c", Content: "hi", ID: "om_1"}
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	b := bus.New(4)
	base := channels.NewBase("feishu", []string{"*"}, b, nil)
	base.UseJournal(j)
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), msg))
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	in.Done() // answered
	require.NoError(t, j.Close())

	j2, err := channels.OpenJournal(path)
	require.NoError(t, err)
	defer j2.Close()
	b2 := bus.New(4)
	base2 := channels.NewBase("feishu", []string{"*"}, b2, nil)
	base2.UseJournal(j2)
	n, err := base2.Resume(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, base2.HandleMessage(testkit.Ctx(t), msg), "taken (the platform hears success)")
	assert.Zero(t, b2.InboundDepth(), "and not handed over again")
}

// Pending is what an earlier run left: a message taken in meanwhile is
// not handed over a second time by a Resume that runs beside the intake.
func TestJournalPendingIsWhatAnEarlierRunLeft(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	_, _, err = j.Add(bus.InboundMessage{Content: "left", ID: "m1"})
	require.NoError(t, err)
	require.NoError(t, j.Close())

	j, err = channels.OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	_, ok, err := j.Add(bus.InboundMessage{Content: "new", ID: "m2"})
	require.NoError(t, err)
	require.True(t, ok)
	pending := j.Pending()
	require.Len(t, pending, 1)
	assert.Equal(t, "m1", pending[0].ID)
}
