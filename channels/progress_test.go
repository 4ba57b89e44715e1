package channels_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// notices records what a Progress is asked to do: "working <id>" and
// "withdrawn <id>". release, when set, holds Working until it is closed.
type notices struct {
	log     *testkit.Log[string]
	release chan struct{}
}

func (n *notices) Working(ctx context.Context, msg bus.InboundMessage) func(context.Context) {
	if msg.Ack != nil {
		n.log.Add("working with an Ack " + msg.ID) // Working must not be able to finish the message
	}
	if n.release != nil {
		<-n.release
	}
	n.log.Add("working " + msg.ID)
	return func(context.Context) { n.log.Add("withdrawn " + msg.ID) }
}

func is(s string) func(string) bool { return func(v string) bool { return v == s } }

func TestProgressNoticeLastsUntilTheMessageIsFinished(t *testing.T) {
	t.Parallel()
	b := bus.New(4)
	p := &notices{log: testkit.NewLog[string]()}
	base := channels.NewBase("chat", []string{"*"}, b, nil)
	base.UseProgress(p)
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "u", ChatID: "c", ID: "m1"}))
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	p.log.WaitFor(t, "working notice", is("working m1"))
	assert.Zero(t, p.log.Count(is("withdrawn m1")), "not withdrawn before the message is finished")
	in.Done()
	p.log.WaitFor(t, "withdrawal", is("withdrawn m1"))
	in.Done() // a second Done withdraws nothing more
	assert.Equal(t, []string{"working m1", "withdrawn m1"}, p.log.All())
}

// A message finished before its notice was even shown still has it
// withdrawn, once.
func TestProgressFinishedBeforeWorkingReturned(t *testing.T) {
	t.Parallel()
	b := bus.New(4)
	p := &notices{log: testkit.NewLog[string](), release: make(chan struct{})}
	base := channels.NewBase("chat", []string{"*"}, b, nil)
	base.UseProgress(p)
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "u", ChatID: "c", ID: "m1"}))
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	in.Done()
	close(p.release)
	p.log.WaitFor(t, "withdrawal", is("withdrawn m1"))
	assert.Equal(t, []string{"working m1", "withdrawn m1"}, p.log.All())
}

// Messages handed over again after a restart get their notice again, and
// their Ack still records them finished in the journal.
func TestProgressOnResume(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	_, _, err = j.Add(bus.InboundMessage{SenderID: "u", ChatID: "c", ID: "m1"})
	require.NoError(t, err)
	require.NoError(t, j.Close())

	j, err = channels.OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	b := bus.New(4)
	p := &notices{log: testkit.NewLog[string]()}
	base := channels.NewBase("chat", []string{"*"}, b, nil)
	base.UseJournal(j)
	base.UseProgress(p)
	n, err := base.Resume(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	p.log.WaitFor(t, "working notice", is("working m1"))
	in.Done()
	p.log.WaitFor(t, "withdrawal", is("withdrawn m1"))
	assert.True(t, j.Seen("m1"))
	assert.Empty(t, j.Pending(), "the Ack still finishes the message")
}

// A duplicate or refused message gets no notice.
func TestProgressOnlyForMessagesHandedOver(t *testing.T) {
	t.Parallel()
	j, err := channels.OpenJournal(filepath.Join(t.TempDir(), "j.jsonl"))
	require.NoError(t, err)
	defer j.Close()
	b := bus.New(4)
	p := &notices{log: testkit.NewLog[string]()}
	base := channels.NewBase("chat", []string{"alice"}, b, nil)
	base.UseJournal(j)
	base.UseProgress(p)
	msg := bus.InboundMessage{SenderID: "alice", ChatID: "c", ID: "m1"}
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), msg))
	require.NoError(t, base.HandleMessage(testkit.Ctx(t), msg))
	require.ErrorIs(t, base.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "mallory", ChatID: "c", ID: "m2"}), channels.ErrNotAllowed)
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	in.Done()
	p.log.WaitFor(t, "withdrawal", is("withdrawn m1"))
	assert.Equal(t, []string{"working m1", "withdrawn m1"}, p.log.All())
}
