package mailboxtest_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailboxtest"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { natstest.Main(m) }

// TestChannelOnFolder runs the channel suite on the folder store: every
// Open is a Store of its own on one root, as separate processes would have.
func TestChannelOnFolder(t *testing.T) {
	t.Parallel()
	mailboxtest.Run(t, func(t *testing.T) *storetest.Harness {
		root := filepath.Join(t.TempDir(), "mailboxes")
		return &storetest.Harness{Open: func(t *testing.T, obs store.Observer) driver.Backend {
			s, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true, AuditLog: true, Observer: obs})
			require.NoError(t, err)
			return s
		}}
	}, storetest.Features{})
}

// TestChannelInMemory runs the channel suite on the in-memory store.
func TestChannelInMemory(t *testing.T) {
	t.Parallel()
	mailboxtest.Run(t, func(t *testing.T) *storetest.Harness {
		hub := memstore.NewHub()
		return &storetest.Harness{Open: func(_ *testing.T, obs store.Observer) driver.Backend {
			return hub.Open(memstore.Options{Observer: obs})
		}}
	}, storetest.Features{})
}

// TestChannelOnNATS runs the channel suite on JetStream: one server for
// the whole test binary, a namespace of its own for each test, and every
// Open a Store on its own connection.
func TestChannelOnNATS(t *testing.T) {
	t.Parallel()
	srv := natstest.Shared(t)
	mailboxtest.Run(t, func(t *testing.T) *storetest.Harness {
		ns := natstest.NewNamespace()
		return &storetest.Harness{Open: func(t *testing.T, obs store.Observer) driver.Backend {
			opts := natsstore.Options{Conn: srv.Connect(t), OwnConn: true, Observer: obs, MaxDeliver: 3,
				AckWait: 10 * time.Second, LockTTL: 5 * time.Second, MaxMessageBytes: 1 << 20, AuditLog: true}
			ns.Apply(&opts)
			s, err := natsstore.Open(testkit.Ctx(t), opts)
			require.NoError(t, err)
			return s
		}}
	}, storetest.Features{MaxDeliver: 3, NoPrune: true, ReadAhead: true})
}
