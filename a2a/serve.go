package a2a

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// Serve runs a gateway of cfg until ctx ends, then stops it within
// stopTimeout: `switchboard a2a serve`. It tells out where it serves each
// agent and which agents it connects.
func Serve(ctx context.Context, cfg Config, opts Options, out io.Writer, stopTimeout time.Duration) error {
	cfg.Enabled = true
	g, err := New(cfg, opts)
	if err != nil {
		return err
	}
	if err := g.Start(ctx); err != nil {
		return err
	}
	if _, url := g.Address(); url != "" {
		for _, id := range cfg.Serve {
			if id == "*" {
				fmt.Fprintf(out, "serving A2A: every registered agent at %s/agents/<id>\n", url)
				continue
			}
			fmt.Fprintf(out, "serving A2A: %s at %s/agents/%s\n", id, url, id)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Connect)) {
		fmt.Fprintf(out, "connected A2A agent: %s is %s\n", name, cfg.Connect[name].URL)
	}
	fmt.Fprintln(out, "(Ctrl-C to stop)")
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	return g.Stop(stop)
}
