//go:build unix

package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

// ageFile sets the modification time of path to d before now.
func ageFile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	require.NoError(t, os.Chtimes(path, at, at))
}

// TestStagingSweptAfterAMinute: a staging file more than a minute old (its
// sender died before linking it) is removed when the inbox is opened and
// again by each Prune; a younger one is left to its sender.
func TestStagingSweptAfterAMinute(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	dir, err := s.deliveryDir("bob")
	require.NoError(t, err)
	tmp := filepath.Join(dir, tmpDir)
	m := newMsg("alice", "bob", "never linked")
	old, err := s.stage(tmp, envelope.FileName(m), encoded(t, m))
	require.NoError(t, err)
	ageFile(t, old, 2*time.Minute)
	young, err := s.stage(tmp, envelope.FileName(m), encoded(t, m))
	require.NoError(t, err)

	in := openTestInbox(t, s, "bob")
	assert.NoFileExists(t, old, "swept at open")
	assert.FileExists(t, young, "being written")

	ageFile(t, young, 90*time.Second)
	_, err = in.Prune(context.Background(), driver.Retention{})
	require.NoError(t, err)
	assert.NoFileExists(t, young, "swept by the periodic prune")
}

// TestDeadSenderSentLineLogged: a sender killed after linking its message
// into the inbox leaves no "sent" line and its staging file; the receiver
// that finds the staging file (at open, or when it claims the message)
// logs the missing "sent" line, before its "claimed" one, and removes the
// staging file. A sender that logged its line gets no second one.
func TestDeadSenderSentLineLogged(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		logged bool // the sender logged "sent" before it died
	}{{"sent line missing", false}, {"sent line present", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openMsgStore(t, func(o *Options) { o.AuditLog = true })
			m := newMsg("alice", "bob", "sender died")
			dir, err := s.deliveryDir("bob")
			require.NoError(t, err)
			staging, err := s.stage(filepath.Join(dir, tmpDir), envelope.FileName(m), encoded(t, m))
			require.NoError(t, err)
			require.NoError(t, os.Link(staging, filepath.Join(dir, inboxDir, envelope.FileName(m))))
			if tt.logged {
				s.emit(messageEvent(driver.EventSent, "bob", m, envelope.FileName(m)))
			}
			ageFile(t, staging, 2*time.Minute)

			in := openTestInbox(t, s, "bob")
			assert.Equal(t, "sender died", next(t, in).Message.Text())
			assert.NoFileExists(t, staging)

			var kinds []driver.EventKind
			require.NoError(t, s.audit.Flush()) // the lines this process queued
			_, err = audit.Read(context.Background(), s.Root(), audit.Filter{MessageID: m.ID}, func(e audit.Entry) bool {
				kinds = append(kinds, e.Kind)
				return true
			})
			require.NoError(t, err)
			assert.Equal(t, []driver.EventKind{driver.EventSent, driver.EventClaimed}, kinds)
		})
	}
}
