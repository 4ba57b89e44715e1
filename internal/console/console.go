package console

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// Operator is the agent id the console acts as: the sender of what the
// operator sends and the actor of every operator entry in the audit log.
const Operator = operator.Actor

// Config is what a Console is made with.
type Config struct {
	// Store is the mailbox store shown (required). What its backend can
	// do (store.CanBrowse, store.CanWatch, store.CanDeadLetters, ...)
	// decides what the console can show; it says what is missing.
	Store *store.Store
	// Where names the store for people ("~/.nanobot/mailboxes").
	Where string
	// Token allows the operator's actions, and reads. Empty: no action
	// is allowed, and no read but those ReadOpen allows.
	Token string
	// ReadOpen lets a request without the token read (the page is then
	// read-only), when it reached the console on a loopback address; a
	// request that came over the network always needs the token. The
	// default: every read needs the token, since any local user can
	// reach a loopback port, though the mailbox folder is theirs only.
	ReadOpen bool
	// AllowHosts are host names (without port) a request's Host header may
	// name besides the address it reached (the address itself, its IP
	// literal, and localhost on loopback, are always allowed): the DNS
	// name of a console served to the network. A request naming another
	// host is refused: it is a page of another site that got a name of
	// its own resolved to this console (DNS rebinding).
	AllowHosts []string
	// OfflineAfter is how old a heartbeat may be (default 30s).
	OfflineAfter time.Duration
	// ReplyTimeout is when a request without reply_by is overdue (0: never).
	ReplyTimeout time.Duration
	// DefaultTTL and MaxThreadHops are the send budgets (0: defaults).
	DefaultTTL, MaxThreadHops int
	// RegistryEvery is how often the cards are re-read to notice agents
	// that start, stop or change load, and the approvals to notice what
	// waits (default 2s). Messages are followed through the store's
	// watch, never by re-reading the tree.
	RegistryEvery time.Duration
	// MinRefresh is how often at most the state the pages read is built
	// anew while messages keep arriving (default DefaultMinRefresh); it
	// is longer when a build takes over a third of it. The pages share
	// one state; an operator's action is shown at once.
	MinRefresh time.Duration
	// Key is the operator's signing key (nil: what the console sends goes
	// unsigned). What the operator sends is signed with it; a cancel, in
	// the delegator's and the worker's names, with their keys where they
	// can be read here, else with it (sent_by operator), as the command
	// line does. Receivers verify it against the key pinned for
	// "operator" (see keys.PinOwn, which the console command runs).
	Key *keys.Key
	// Approvals are the approvals waiting for the operator (nil: those
	// the store keeps; see Approvals).
	Approvals Approvals
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives logs (nil discards).
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.OfflineAfter <= 0 {
		c.OfflineAfter = 30 * time.Second
	}
	if c.RegistryEvery <= 0 {
		c.RegistryEvery = 2 * time.Second
	}
	if c.MinRefresh <= 0 {
		c.MinRefresh = DefaultMinRefresh
	}
	if c.Approvals == nil {
		c.Approvals = NoApprovals{}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Console serves the console over HTTP.
type Console struct {
	cfg  Config
	op   *operator.Operator
	hub  *hub
	msgs messages   // the stored messages read so far
	snap snapshot   // the state the pages share
	mu   sync.Mutex // serialises the operator's actions
	// watching is closed once the store's watch is in place.
	watching chan struct{}
}

// Watching returns a channel closed once Run's watch of the store is in
// place: every message that arrives from then on is announced.
func (c *Console) Watching() <-chan struct{} { return c.watching }

// New makes a console. Call Run to follow the store, and serve Handler.
func New(cfg Config) (*Console, error) {
	if cfg.Store == nil {
		return nil, errors.New("console: a store is required")
	}
	cfg.setDefaults()
	op, err := operator.New(operator.Config{Store: cfg.Store, DefaultTTL: cfg.DefaultTTL, Now: cfg.Now, Logger: cfg.Logger, Key: cfg.Key})
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.Approvals.(NoApprovals); ok {
		cfg.Approvals = StoreApprovals{Operator: op} // every store keeps approvals
	}
	return &Console{cfg: cfg, op: op, hub: newHub(), watching: make(chan struct{})}, nil
}

// NewToken returns a fresh random token (32 hex digits).
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// Handler returns the console's HTTP handler: the page, /api/state (the
// whole picture as JSON), /api/events (server-sent events telling the page
// to refresh) and the POST /api/action/... endpoints. Every request must
// name this console in its Host header and, when it has one, come from its
// own origin (see guard); reads need the token unless ReadOpen allows
// them, actions always do.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /", c.reader(assetHandler()))
	mux.Handle("GET /api/state", c.reader(http.HandlerFunc(c.serveState)))
	mux.Handle("GET /api/events", c.reader(http.HandlerFunc(c.serveEvents)))
	mux.Handle("GET /api/session", c.reader(http.HandlerFunc(c.serveSession)))
	mux.Handle("POST /api/action/{name}", http.HandlerFunc(c.serveAction))
	mux.HandleFunc("GET /api/action/{name}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "actions are POST requests only")
	})
	return secureHeaders(c.guard(mux))
}

// Run follows the store until ctx ends, telling the pages that are open
// when something changed: a message arrived (the store's watch), the
// registry or the approvals changed (re-read every RegistryEvery). It
// returns nil when ctx ends.
func (c *Console) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { c.watchMessages(ctx) })
	wg.Go(func() { c.watchRegistry(ctx) })
	wg.Go(func() { c.watchApprovals(ctx) })
	wg.Wait()
	return nil
}
