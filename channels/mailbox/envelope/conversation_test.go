package envelope

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateSubject(t *testing.T) {
	for _, tt := range []struct {
		subject string
		ok      bool
	}{
		{"", true},
		{"style", true},
		{"missing-test", true},
		{"api-v2", true},
		{"a-b-c-1", true},
		{"Missing-Test", false},
		{"missing_test", false},
		{"-lead", false},
		{"trail-", false},
		{"double--dash", false},
		{"has space", false},
		{"ünicode", false},
		{"x123456789-123456789-123456789-123456789-123456789-123456789-12345", false},
	} {
		t.Run(tt.subject, func(t *testing.T) {
			err := ValidateSubject(tt.subject)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBadSubject))
		})
	}
}

func TestMessageKind(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  Message
		want Kind
	}{
		{"plain", Message{Type: TypeMessage}, KindNotify},
		{"question", Message{Type: TypeMessage, ExpectsReply: true}, KindRequest},
		{"answer", Message{Type: TypeMessage, ReplyTo: "x"}, KindResponse},
		{"follow-up question", Message{Type: TypeMessage, ReplyTo: "x", ExpectsReply: true}, KindRequest},
		{"task update", Message{Type: TypeTaskUpdate, Task: &Task{ID: "t"}}, KindResponse},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.msg.Kind())
			assert.True(t, tt.want.Valid())
		})
	}
	assert.False(t, Kind("chat").Valid())
}

func TestTaskOf(t *testing.T) {
	assert.Equal(t, "t1", (&Message{Task: &Task{ID: "t1"}, TaskID: "t2"}).TaskOf())
	assert.Equal(t, "t2", (&Message{TaskID: "t2"}).TaskOf())
	assert.Equal(t, "", (&Message{}).TaskOf())
}

func TestConversationFieldsRoundTrip(t *testing.T) {
	due := NewTime(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	m := &Message{ID: NewID(), From: "a", To: "b", Timestamp: NewTime(time.Now()), Type: TypeMessage,
		TTL: 2, Trace: []string{"a"}, ThreadID: "th", Subject: "missing-test", ExpectsReply: true,
		Priority: 3, HopCount: 1, TaskID: "task_9", ReplyBy: &due}
	data, err := Encode(m)
	require.NoError(t, err)
	got, err := DecodeBytes(data)
	require.NoError(t, err)
	assert.Equal(t, "task_9", got.TaskID)
	require.NotNil(t, got.ReplyBy)
	assert.True(t, got.ReplyBy.Equal(due.Time))
	assert.Equal(t, 3, got.Priority)

	// nanobot leaves the keys out or writes null.
	got, err = DecodeBytes([]byte(`{"id":"m","from":"a","to":"b","type":"message","task_id":null,"reply_by":null}`))
	require.NoError(t, err)
	assert.Equal(t, "", got.TaskID)
	assert.Nil(t, got.ReplyBy)
}
