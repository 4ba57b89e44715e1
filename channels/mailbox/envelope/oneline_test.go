package envelope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	parts := []envelope.Part{
		{Type: envelope.PartFile, Path: "/tmp/a.txt"},
		{Type: envelope.PartText, Text: "line one\nline two\r\nthree\tfour"},
		{Type: envelope.PartData, Data: map[string]any{"n": 1}},
		{Type: envelope.PartText, Text: ""},
		{Type: envelope.PartText, Text: "end"},
	}
	assert.Equal(t, `line one ⏎ line two ⏎ three four end file:/tmp/a.txt {"n":1}`, envelope.OneLine(parts))
	assert.Empty(t, envelope.OneLine(nil))
}
