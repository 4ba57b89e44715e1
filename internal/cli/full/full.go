package full

import (
	"context"

	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the mailbox backend "nats"
	"github.com/switchboard-dev/switchboard/config"
	_ "github.com/switchboard-dev/switchboard/examples/feishu-stub" // registers the channel type "feishu"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/cli"
)

// Extras returns every extra of the command line.
func Extras() *cli.Extras {
	return &cli.Extras{
		RunHost:       runHost,
		StartTracing:  startTracing,
		CheckProvider: checkProvider,
		ServeMCP:      serveMCP,
		StartNATS:     startNATS,
		PingNATS:      pingNATS,
	}
}

// runHost assembles the host of cfg, starts tracing for its agent and
// runs it until ctx ends.
func runHost(ctx context.Context, cfg *config.Config, o cli.HostOptions) error {
	h, err := host.New(cfg, host.Options{Logger: o.Logger, Environ: o.Environ, StopTimeout: o.StopTimeout})
	if err != nil {
		return err
	}
	agent := ""
	if mb := h.Mailbox(); mb != nil {
		agent = mb.AgentID()
	}
	stopTracing, err := o.Tracing(agent)
	if err != nil {
		_ = h.Stop()
		return err
	}
	defer stopTracing()
	return h.Run(ctx)
}

// checkProvider builds the provider of cfg as run would.
func checkProvider(cfg *config.Config, environ []string) error {
	_, _, err := host.NewProvider(cfg, host.Options{Environ: environ})
	return err
}
