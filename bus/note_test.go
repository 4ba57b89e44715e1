package bus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/bus"
)

func TestNote(t *testing.T) {
	for _, tt := range []struct {
		note bus.Note
		text string
	}{
		{bus.Note{Type: "task", From: "researcher", Text: "sort 5 3 9 1"},
			"[mailbox task from researcher] sort 5 3 9 1"},
		{bus.Note{Type: "message", From: "a", Text: "line one\nline two"},
			"[mailbox message from a] line one\nline two"},
		{bus.Note{Type: "task_update", From: "coder", TaskID: "task_1", State: "completed", Text: "1 3"},
			"[mailbox task_update from coder: task task_1 completed] 1 3"},
		{bus.Note{Type: "task_update", From: "coder", TaskID: "task_1", State: "accepted"},
			"[mailbox task_update from coder: task task_1 accepted]"},
		{bus.Note{Type: "task_update", From: "coder", TaskID: "t", State: "failed", Reason: "bad [input]", Text: "partial"},
			"[mailbox task_update from coder: task t failed] reason: bad [input]\npartial"},
		{bus.Note{Type: "message", From: "py", Text: "hi", Unverified: true},
			"[mailbox message from py (unverified)] hi"},
		{bus.Note{Type: "task_update", From: "py", TaskID: "t", State: "completed", Unverified: true},
			"[mailbox task_update from py (unverified): task t completed]"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			assert.Equal(t, tt.text, tt.note.String())
			got, ok := bus.ParseNote(tt.text)
			assert.True(t, ok)
			assert.Equal(t, tt.note, got)
		})
	}
}

// The task id of a task (or of a message that belongs to one) is for the
// loop's bookkeeping (the judge, approvals); the header keeps its form.
func TestNoteShowsTheTaskOfAnUpdateOnly(t *testing.T) {
	n := bus.Note{Type: "task", From: "lead", TaskID: "task_9", Text: "sort 2 1"}
	assert.Equal(t, "[mailbox task from lead] sort 2 1", n.String())
	got, ok := bus.ParseNote(n.String())
	assert.True(t, ok)
	assert.Equal(t, bus.Note{Type: "task", From: "lead", Text: "sort 2 1"}, got)
}

func TestNoteSanitisesHeaderWords(t *testing.T) {
	n := bus.Note{Type: "task_update", From: "we]ird: id", TaskID: "a b", State: ""}
	assert.Equal(t, "[mailbox task_update from we_ird__id: task a_b -]", n.String())
	got, ok := bus.ParseNote(n.String())
	assert.True(t, ok)
	assert.Equal(t, "we_ird__id", got.From)
}

func TestParseNoteRejects(t *testing.T) {
	for _, s := range []string{"", "hello", "[mailbox task]", "[mailbox task from]", "[mailbox task from a b]",
		"[mailbox task_update from a: task x] y", "[mailbox task from a", "[mailbox task from a (verified)] x",
		"[mailbox task from a (unverified) b] x"} {
		_, ok := bus.ParseNote(s)
		assert.False(t, ok, s)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[bus.Kind]string{bus.KindChat: "chat", bus.KindTask: "task", bus.KindMessage: "message", bus.KindRecord: "record"} {
		assert.Equal(t, want, k.String())
	}
	var zero bus.InboundMessage
	assert.Equal(t, bus.KindChat, zero.Kind, "a person's message unless the channel says otherwise")
}
