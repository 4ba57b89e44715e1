package cli

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// backendFS is channels.mailbox.backend of the filesystem store.
const backendFS = "fs"

// mailboxStore is the store a command works on: the filesystem store at
// --root, else the one channels.mailbox.backend names.
type mailboxStore struct {
	// be is the open store; nil when a reading command found none (a
	// missing root, a NATS server without the mailbox's stream): there
	// is nothing to list then, and nothing was created.
	be *store.Store
	// kind is the backend's name ("fs", "nats", ...).
	kind string
	// where names the store for people: the root, or the NATS server.
	where string
}

// close closes the store, if one was opened.
func (m *mailboxStore) close() {
	if m.be != nil {
		m.be.Close()
	}
}

// backendKind is the backend the mailbox commands use: "fs" with --root,
// else channels.mailbox.backend.
func (a *app) backendKind(s *settings) string {
	if a.root != "" {
		return backendFS
	}
	return s.mailbox.Backend
}

// openMailbox opens the store of a command. With readOnly nothing is
// created: a store that does not exist yet gives a mailboxStore with a nil
// be.
func (a *app) openMailbox(readOnly bool) (*mailboxStore, *settings, error) {
	return a.openMailboxWith(readOnly, nil)
}

// openMailboxWith is openMailbox, with tune (if not nil) adjusting the
// store.Config of a backend other than the filesystem one.
func (a *app) openMailboxWith(readOnly bool, tune func(*store.Config)) (*mailboxStore, *settings, error) {
	s, err := a.settings()
	if err != nil {
		return nil, nil, err
	}
	kind := a.backendKind(s)
	m := &mailboxStore{kind: kind, where: a.storeWhere(s)}
	if kind == backendFS {
		open := a.openStore
		if readOnly {
			open = a.openExistingStore
		}
		st, _, err := open()
		if err != nil {
			return nil, nil, err
		}
		if st != nil {
			m.be = store.New(st, a.logger(slog.LevelWarn))
		}
		return m, s, nil
	}
	cfg := s.mailbox
	if cfg.AgentID == "" {
		cfg.AgentID = placeholderAgent // names the connection
	}
	sc := cfg.StoreConfig()
	sc.Logger, sc.NoCreate = a.logger(slog.LevelWarn), readOnly
	if tune != nil {
		tune(&sc)
	}
	be, err := store.Open(kind, sc)
	if readOnly && errors.Is(err, store.ErrNoStore) {
		return m, s, nil
	}
	if err != nil {
		return nil, nil, err
	}
	m.be = be
	return m, s, nil
}

// storeWhere names the store of the mailbox commands for people: the
// root folder, or "NATS at URL".
func (a *app) storeWhere(s *settings) string {
	kind := a.backendKind(s)
	if kind == backendFS {
		return tilde(s.mailbox.MailboxesRoot)
	}
	return store.Where(kind, s.mailbox.StoreConfig())
}

// in says where messages were looked for: "under ROOT", "on NATS at URL".
func (m *mailboxStore) in() string {
	if m.kind == backendFS {
		return "under " + m.where
	}
	return "on " + m.where
}

// at says where the store is, after "watching coder's inbox": "in ROOT",
// "on NATS at URL".
func (m *mailboxStore) at() string {
	if m.kind == backendFS {
		return "in " + m.where
	}
	return "on " + m.where
}

// lacks is the error of a command that needs an ability the store does
// not have: "thread: the nats store cannot list stored messages".
func (m *mailboxStore) lacks(command, what string) error {
	return fmt.Errorf("%s: the %s store %s", command, m.kind, what)
}

// browser returns the store, or the error of command when it cannot list
// its stored messages (store.CanBrowse).
func (m *mailboxStore) browser(command string) (*store.Store, error) {
	if m.be.Has(store.CanBrowse) {
		return m.be, nil
	}
	return nil, m.lacks(command, "cannot list stored messages")
}

// warn tells of a problem that does not stop the command, on one line of
// stderr.
func (a *app) warn(err error) {
	fmt.Fprintf(a.env.Stderr, "switchboard: %s\n", oneLine(err.Error()))
}

// fsOnly is the error of a command that works on the filesystem store
// only, when the config names another.
func (a *app) fsOnly(command string) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	if kind := a.backendKind(s); kind != backendFS {
		return fmt.Errorf("%s works on the filesystem store only, and channels.mailbox.backend is %q (pass --root DIR to use a mailbox folder)", command, kind)
	}
	return nil
}
