package natsstore

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// BackendName is the value of channels.mailbox.backend that selects this
// store.
const BackendName = "nats"

func init() {
	store.Register(BackendName, OpenBackend)
	store.RegisterWhere(BackendName, where)
}

// where names the server a store of cfg connects to: "NATS at URL".
func where(cfg driver.Config) string {
	c, err := DecodeSection(cfg.Section)
	if err != nil {
		return "NATS"
	}
	return "NATS at " + c.URL
}

// OpenBackend is the driver.Factory of this store: it decodes the
// channels.mailbox.nats section, connects as the agent and opens the
// store, which then owns the connection. The mailbox's offlineAfter is the
// presence TTL and its maxMessageBytes the size cap. With cfg.WatchOnly
// it only connects: the store it gives can Watch (see Store.Watch) and
// Close, whether the stream exists or not, and fails every other call.
func OpenBackend(cfg driver.Config) (driver.Backend, error) {
	nc, err := DecodeSection(cfg.Section)
	if err != nil {
		return nil, err
	}
	conn, err := nc.Connect(cfg.AgentID)
	if err != nil {
		return nil, err
	}
	if cfg.WatchOnly {
		return openWatchOnly(conn, nc.SubjectPrefix, cfg.MaxMessageBytes, cfg.Logger), nil
	}
	opts := nc.Options(conn)
	opts.PresenceTTL = cfg.OfflineAfter
	opts.MaxMessageBytes = cfg.MaxMessageBytes
	opts.AuditLog, opts.Agent = cfg.AuditLog, cfg.AgentID
	opts.Observer, opts.Logger = cfg.Observer, cfg.Logger
	opts.NoCreate = cfg.NoCreate
	opts.KeyFile = cmp.Or(nc.Credentials, nc.NKey)
	s, err := openPatiently(opts, seconds(nc.ConnectTimeout)+requestTimeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s.opts.OwnConn = true
	return s, nil
}

// openAttempts is how many times openPatiently tries.
const openAttempts = 4

// openRetry spaces openPatiently's attempts.
var openRetry = backoff.Policy{Initial: time.Second, Max: 8 * time.Second}

// openPatiently opens the store, each attempt within limit, trying again
// (up to openAttempts, after a jittered wait) when an attempt ran out of
// time: a thousand agents that start at once ask the server's JetStream
// API ten thousand questions, and the last in line wait longer than one
// request may; those that try again later find it free.
func openPatiently(opts Options, limit time.Duration) (*Store, error) {
	waits := openRetry.Start()
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		s, err := Open(ctx, opts)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || attempt == openAttempts {
			return s, err
		}
		if opts.Logger != nil {
			opts.Logger.Warn("the NATS server did not answer in time; trying again", "attempt", attempt, "err", err)
		}
		_ = backoff.Sleep(context.Background(), clock.Real, waits.Next())
	}
}
