package full

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/internal/cli"
)

// serveA2A runs the A2A gateway of o.Section until ctx ends.
func serveA2A(ctx context.Context, o cli.A2AOptions) error {
	cfg, err := a2a.DecodeConfig(o.Section)
	if err != nil {
		return cli.UsageError(err)
	}
	return a2a.Serve(ctx, cfg, a2a.Options{Mailbox: o.Mailbox, Logger: o.Logger, Version: o.Version}, o.Out, a2aStopTimeout)
}

// a2aStopTimeout bounds the stop of the gateway at the end.
const a2aStopTimeout = 10 * time.Second
