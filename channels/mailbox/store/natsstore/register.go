package natsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
	opts.OwnConn = true
	opts.PresenceTTL = cfg.OfflineAfter
	opts.MaxMessageBytes = cfg.MaxMessageBytes
	opts.AuditLog, opts.Agent = cfg.AuditLog, cfg.AgentID
	opts.Observer, opts.Logger = cfg.Observer, cfg.Logger
	opts.NoCreate = cfg.NoCreate
	opts.KeyFile = cmp.Or(nc.Credentials, nc.NKey)
	wait := seconds(nc.ConnectTimeout) + requestTimeout
	opts.FirstAnswerWait = wait
	ctx, cancel := context.WithTimeout(context.Background(), wait+busyWait)
	defer cancel()
	st, err := Open(ctx, opts)
	if err != nil {
		return nil, setUpError(nc.URL, wait, err)
	}
	return st, nil
}

// busyWait is how much longer than the wait for its first answer a store
// that opens waits for the rest: a server that answered is busy, not mute
// (a thousand agents that start at once ask it some six thousand
// questions), and an agent that gave up on it would have to start again.
const busyWait = 2 * time.Minute

// setUpError is the error of opening the store on a connection made to
// the server at url: it names the server and the key once, and says what a
// request that timed out means (the server takes connections, its
// JetStream does not answer). An error that names the server already (no
// JetStream), or that callers test for (driver.ErrNoStore), is kept.
func setUpError(url string, wait time.Duration, err error) error {
	switch {
	case errors.Is(err, driver.ErrNoStore), errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return fmt.Errorf("NATS at %s (%s.url): the server took the connection but its JetStream did not answer within %s "+
			"(a server still starting, a cluster without a quorum): %w", url, ConfigPath, wait, err)
	}
	return fmt.Errorf("NATS at %s (%s.url): %w", url, ConfigPath, err)
}
