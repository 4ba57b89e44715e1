package agentloop_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/agentloop"
)

func TestMailboxNote(t *testing.T) {
	for _, tt := range []struct {
		note agentloop.MailboxNote
		text string
	}{
		{agentloop.MailboxNote{Type: "task", From: "researcher", Text: "sort 5 3 9 1"},
			"[mailbox task from researcher] sort 5 3 9 1"},
		{agentloop.MailboxNote{Type: "message", From: "a", Text: "line one\nline two"},
			"[mailbox message from a] line one\nline two"},
		{agentloop.MailboxNote{Type: "task_update", From: "coder", TaskID: "task_1", State: "completed", Text: "1 3"},
			"[mailbox task_update from coder: task task_1 completed] 1 3"},
		{agentloop.MailboxNote{Type: "task_update", From: "coder", TaskID: "task_1", State: "accepted"},
			"[mailbox task_update from coder: task task_1 accepted]"},
		{agentloop.MailboxNote{Type: "task_update", From: "coder", TaskID: "t", State: "failed", Reason: "bad [input]", Text: "partial"},
			"[mailbox task_update from coder: task t failed] reason: bad [input]\npartial"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			assert.Equal(t, tt.text, tt.note.String())
			got, ok := agentloop.ParseMailboxNote(tt.text)
			assert.True(t, ok)
			assert.Equal(t, tt.note, got)
		})
	}
}

func TestMailboxNoteSanitisesHeaderWords(t *testing.T) {
	n := agentloop.MailboxNote{Type: "task_update", From: "we]ird: id", TaskID: "a b", State: ""}
	assert.Equal(t, "[mailbox task_update from we_ird__id: task a_b -]", n.String())
	got, ok := agentloop.ParseMailboxNote(n.String())
	assert.True(t, ok)
	assert.Equal(t, "we_ird__id", got.From)
}

func TestParseMailboxNoteRejects(t *testing.T) {
	for _, s := range []string{"", "hello", "[mailbox task]", "[mailbox task from]", "[mailbox task from a b]",
		"[mailbox task_update from a: task x] y", "[mailbox task from a"} {
		_, ok := agentloop.ParseMailboxNote(s)
		assert.False(t, ok, s)
	}
}
