package natsstore_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Every listening agent holds two consumers of the main stream, and
// nats-server gives a stream that sets no limit a default of 1,000
// consumers: the store's own stream sets one far above, so that 501
// agents (1,002 consumers) can all open their inboxes.
func TestInboxesPastServerDefaultConsumerLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 501 inboxes")
	}
	ts := sharedServer(t)
	cfg, err := natsstore.DecodeConfig(ts.section(nil))
	require.NoError(t, err)
	be := openWith(t, cfg.Options(ts.Connect(t)))
	for i := range 501 {
		in, err := be.OpenInbox(testkit.Ctx(t), fmt.Sprintf("agent-%03d", i))
		require.NoError(t, err, "inbox %d", i)
		t.Cleanup(func() { in.Close() })
	}
}
