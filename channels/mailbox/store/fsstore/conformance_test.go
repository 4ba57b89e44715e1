package fsstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// TestConformance runs the backend conformance suite on the filesystem
// store. Every Open is a Store of its own on one root, as separate
// processes would have.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) *storetest.Harness {
		root := filepath.Join(t.TempDir(), "mailboxes")
		return &storetest.Harness{
			Open: func(t *testing.T, obs driver.Observer) driver.Backend {
				s, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true, AuditLog: true, Observer: obs})
				require.NoError(t, err)
				return s
			},
			InjectRaw: func(t *testing.T, agent, from string, data []byte) {
				dir := filepath.Join(root, agent, "inbox")
				require.NoError(t, os.MkdirAll(dir, 0o700))
				// Named like a message sent a moment ago, so it sorts
				// before what the test delivers next.
				m := &envelope.Message{ID: envelope.NewID(), From: from,
					Timestamp: envelope.NewTime(time.Now().Add(-time.Second))}
				require.NoError(t, os.WriteFile(filepath.Join(dir, envelope.FileName(m)), data, 0o600))
			},
			CorruptArtifact: func(t *testing.T, digest string, data []byte) {
				require.NoError(t, os.WriteFile(filepath.Join(root, "_artifacts", "sha256", digest), data, 0o600))
			},
			Crash: func(t *testing.T, in driver.Inbox) { require.NoError(t, fsstore.Crash(in)) },
		}
	}, storetest.Features{MaxDeliver: fsstore.DefaultMaxDeliver, NoNudge: true})
}
