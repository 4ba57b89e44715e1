package mailboxtest

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

type suite struct {
	f    storetest.Factory
	feat storetest.Features
}

// world is one store under test with the backends a test opened on it.
type world struct {
	h *storetest.Harness
}

func (s *suite) world(t *testing.T) *world {
	t.Helper()
	return &world{h: s.f(t)}
}

// open opens a backend and closes it when the test ends, and returns the
// store over it, as the channel and the tools use it.
func (w *world) open(t *testing.T, obs store.Observer) *store.Store {
	t.Helper()
	be := w.h.Open(t, obs)
	t.Cleanup(func() { be.Close() })
	return store.New(be, nil)
}
