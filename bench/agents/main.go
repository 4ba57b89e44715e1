package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // registers the mailbox backend "fs"
)

// options are the command-line flags.
type options struct {
	n      int
	idle   time.Duration
	warmup time.Duration
	root   string
	keep   bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agents:", err)
		os.Exit(1)
	}
}

// run parses args, runs the measurement and prints the report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fl := flag.NewFlagSet("agents", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.IntVar(&o.n, "n", 300, "agents to start")
	fl.DurationVar(&o.idle, "idle", 30*time.Second, "how long the agents stay idle while the CPU is measured")
	fl.DurationVar(&o.warmup, "warmup", 6*time.Second, "wait after the start before measuring")
	fl.StringVar(&o.root, "root", "", "folder for the mailbox tree (default the system's temporary folder)")
	fl.BoolVar(&o.keep, "keep", false, "keep the mailbox tree")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if o.n <= 0 || o.idle < 0 || o.warmup < 0 {
		return fmt.Errorf("-n must be positive, -idle and -warmup not negative")
	}
	r, err := measure(ctx, o, stderr)
	if err != nil {
		return err
	}
	r.print(stdout)
	if !r.eventDriven() {
		return fmt.Errorf("%d of %d messages took longer than %s: not event-driven", r.slow, r.n, eventDrivenLimit)
	}
	return nil
}
