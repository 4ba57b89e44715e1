package fsstore

import (
	"context"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// openMsgStore opens a store on a fresh temp root: no fsync (speed), a
// poll interval long enough that only fsnotify wakes a waiting Next.
func openMsgStore(t *testing.T, mods ...func(*Options)) (*Store, *testkit.Events) {
	t.Helper()
	events := testkit.NewEvents()
	opts := Options{Root: filepath.Join(t.TempDir(), "mailboxes"), NoSync: true, IndexDir: filepath.Join(t.TempDir(), "index"),
		PollInterval: time.Hour, Observer: events.Observe}
	for _, m := range mods {
		m(&opts)
	}
	s, err := Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, events
}

// openTestInbox opens agent's inbox and closes it when the test ends.
func openTestInbox(t *testing.T, s *Store, agent string) *Inbox {
	t.Helper()
	in, err := s.OpenInbox(context.Background(), agent)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	return in.(*Inbox)
}

// newMsg returns a valid message. Its timestamp is the millisecond in its
// UUIDv7 id, so that messages made one after another get file names in
// the same order.
func newMsg(from, to, text string) *envelope.Message {
	id := envelope.NewID()
	u := uuid.MustParse(id)
	ms := int64(binary.BigEndian.Uint64(append([]byte{0, 0}, u[:6]...)))
	return &envelope.Message{ID: id, From: from, To: to, Timestamp: envelope.NewTime(time.UnixMilli(ms).UTC()),
		Type: envelope.TypeMessage, TTL: 3, Trace: []string{from},
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}
}

// deliver delivers m and fails the test on error.
func deliver(t *testing.T, s *Store, m *envelope.Message) {
	t.Helper()
	require.NoError(t, s.Deliver(context.Background(), m))
}

// next returns the next delivery, failing after testkit.WaitLimit.
func next(t *testing.T, in *Inbox) *driver.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	return d
}

// ack acknowledges d, failing the test on error.
func ack(t *testing.T, in *Inbox, d *driver.Delivery) {
	t.Helper()
	require.NoError(t, in.Ack(context.Background(), d))
}

// agentPath joins parts under the agent's folder.
func agentPath(s *Store, agent string, parts ...string) string {
	return filepath.Join(append([]string{s.Root(), agent}, parts...)...)
}

// names lists a folder's entries (nil if it does not exist).
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// writeRaw puts a file straight into a folder, as another writer would.
func writeRaw(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
}

// encoded returns m as Deliver writes it.
func encoded(t *testing.T, m *envelope.Message) []byte {
	t.Helper()
	data, err := envelope.EncodeCompact(m)
	require.NoError(t, err)
	return data
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
