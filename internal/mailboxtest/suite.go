package mailboxtest

import (
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

type suite struct {
	f    storetest.Factory
	feat storetest.Features
}

// world is one store under test with the backends a test opened on it.
type world struct {
	h *storetest.Harness
	// keys is the folder of the agents' key files, for a store that keeps
	// no keys itself (keyFile).
	keys string
}

func (s *suite) world(t *testing.T) *world {
	t.Helper()
	return &world{h: s.f(t), keys: t.TempDir()}
}

// keySource is where agent id's signing key is on be: the store's own
// records when it keeps secrets, else a file of the world's, as
// channels.mailbox.keyFile names one.
func (w *world) keySource(be *store.Store, id string) keys.Source {
	if be.KeepsSecrets() {
		return keys.Source{}
	}
	return keys.Source{File: filepath.Join(w.keys, id+".nk")}
}

// open opens a backend and closes it when the test ends, and returns the
// store over it, as the channel and the tools use it.
func (w *world) open(t *testing.T, obs store.Observer) *store.Store {
	t.Helper()
	be := w.h.Open(t, obs)
	t.Cleanup(func() { be.Close() })
	return store.New(be, nil)
}
