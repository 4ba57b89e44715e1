package full

import (
	"cmp"
	"context"
	"time"

	_ "github.com/switchboard-dev/switchboard/a2a"                              // registers the channel type "a2a"
	_ "github.com/switchboard-dev/switchboard/channels/feishu"                  // registers the channel type "feishu"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"                 // registers the channel type "mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the mailbox backend "nats"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/cli"
	"github.com/switchboard-dev/switchboard/internal/cli/demo"
	_ "github.com/switchboard-dev/switchboard/internal/feishustub" // registers the channel type "feishu"
	_ "github.com/switchboard-dev/switchboard/internal/feishustub" // registers the channel type "feishu-stub"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// Extras returns every extra of the command line.
func Extras() *cli.Extras {
	return &cli.Extras{
		RunHost:       runHost,
		StartTracing:  startTracing,
		CheckProvider: checkProvider,
		ServeMCP:      serveMCP,
		Demo:          runDemo,
		ServeA2A:      serveA2A,
	}
}

// runHost assembles the host of cfg, starts tracing for its agent, serves
// its metrics when o.MetricsListen names an address, and runs it until ctx
// ends.
func runHost(ctx context.Context, cfg *config.Config, o cli.HostOptions) error {
	opts := host.Options{Logger: o.Logger, Environ: o.Environ, StopTimeout: o.StopTimeout}
	var mx *metrics.Metrics
	if o.MetricsListen != "" { // no metrics, no Prometheus: nothing of it runs
		maxTurn := cmp.Or(cfg.Observability.Metrics.MaxTurnSeconds, config.DefaultMaxTurnSeconds)
		mx = metrics.New(metrics.Options{MaxTurn: time.Duration(maxTurn * float64(time.Second))})
		opts.Hooks = append(opts.Hooks, mx.Hook())
	}
	h, err := host.New(cfg, opts)
	if err != nil {
		return err
	}
	stopTracing, err := o.Tracing(h.AgentID())
	if err != nil {
		_ = h.Stop()
		return err
	}
	defer stopTracing()
	if mx != nil {
		live, ready := mx.Watch(h)
		srv, err := metrics.Listen(o.MetricsListen, mx, live, ready, o.Logger)
		if err != nil {
			_ = h.Stop()
			return err
		}
		o.Logger.Info("metrics listening", "metrics", "http://"+srv.Addr()+"/metrics")
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), o.StopTimeout)
			defer cancel()
			_ = srv.Close(ctx)
		}()
	}
	return h.Run(ctx)
}

// runDemo runs the demo; its usage errors stay usage errors.
func runDemo(ctx context.Context, o cli.DemoOptions) error {
	err := demo.Run(ctx, demo.Options{Dir: o.Dir, Timeout: o.Timeout, Keep: o.Keep, Backend: o.Backend,
		NATSURL: o.NATSURL, Observe: o.Observe, Stdout: o.Stdout, Environ: o.Environ})
	if demo.IsUsage(err) {
		return cli.UsageError(err)
	}
	return err
}

// checkProvider builds the provider of cfg as run would.
func checkProvider(cfg *config.Config, environ []string) error {
	_, _, err := host.NewProvider(cfg, host.Options{Environ: environ})
	return err
}
