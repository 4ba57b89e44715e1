package natsstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// A history stream whose check timed out is only worth a warning when
// the server refused the request; a busy server's late answer is not.
func TestHistoryCheckTimedOutOrRefused(t *testing.T) {
	t.Parallel()
	refusal := fmt.Errorf("%w for Publish to %q", nats.ErrPermissionViolation, "$JS.API.STREAM.INFO.MAILBOX_HISTORY")
	other := fmt.Errorf("%w for Publish to %q", nats.ErrPermissionViolation, "mailbox.bob.inbox.x")
	for _, c := range []struct {
		err, last error
		want      bool
	}{
		{context.DeadlineExceeded, nil, true},
		{fmt.Errorf("stream info: %w", context.DeadlineExceeded), other, true},
		{context.DeadlineExceeded, refusal, false},
		{errors.New("stream not found"), nil, false},
		{nats.ErrNoResponders, nil, false},
	} {
		assert.Equal(t, c.want, natsstore.Unanswered(c.err, c.last), "%v, last %v", c.err, c.last)
	}
}
