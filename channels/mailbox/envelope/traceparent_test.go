package envelope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestTraceID(t *testing.T) {
	t.Parallel()
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for tp, want := range map[string]string{
		"00-" + id + "-00f067aa0ba902b7-01":          id,
		"00-" + id + "-00f067aa0ba902b7-00":          id, // not sampled: still its trace
		"01-" + id + "-00f067aa0ba902b7-01-whatever": id, // a later version may add fields
		"":        "",
		"garbage": "",
		"00-" + id + "-00f067aa0ba902b7-01-extra":                 "", // version 00 has none
		"01-" + id + "-00f067aa0ba902b7-01x":                      "",
		"ff-" + id + "-00f067aa0ba902b7-01":                       "",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01": "",
		"00-" + id + "-0000000000000000-01":                       "",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01": "", // upper case is not hex here
		"00_" + id + "-00f067aa0ba902b7-01":                       "",
		"0g-" + id + "-00f067aa0ba902b7-01":                       "",
	} {
		assert.Equal(t, want, envelope.TraceID(tp), tp)
	}
}
