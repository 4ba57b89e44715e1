package channels_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
