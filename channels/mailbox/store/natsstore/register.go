package natsstore

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// BackendName is the value of channels.mailbox.backend that selects this
// store.
const BackendName = "nats"

func init() { mailbox.RegisterBackend(BackendName, OpenBackend) }

// OpenBackend is the mailbox.BackendFactory of this store: it decodes the
// channels.mailbox.nats section, connects as the agent and opens the
// store, which then owns the connection. The mailbox's offlineAfter is the
// presence TTL and its maxMessageBytes the size cap.
func OpenBackend(cfg mailbox.Config, deps mailbox.BackendDeps) (store.Backend, error) {
	nc, err := DecodeConfig(cfg.NATS)
	if err != nil {
		return nil, err
	}
	conn, err := nc.Connect(cfg.AgentID)
	if err != nil {
		return nil, err
	}
	opts := nc.Options(conn)
	opts.OwnConn = true
	opts.PresenceTTL = time.Duration(cfg.OfflineAfter * float64(time.Second))
	opts.MaxMessageBytes = cfg.MaxMessageBytes
	opts.AuditLog, opts.Agent = cfg.AuditLog, cfg.AgentID
	opts.Observer, opts.Logger = deps.Observer, deps.Logger
	opts.NoCreate = deps.NoCreate
	ctx, cancel := context.WithTimeout(context.Background(), seconds(nc.ConnectTimeout)+requestTimeout)
	defer cancel()
	return Open(ctx, opts)
}
