package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/openai"      // provider kind "openai"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"               // channel type "mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // mailbox backend "fs"
	_ "github.com/switchboard-dev/switchboard/internal/feishustub"            // channel type "feishu-stub"
)

// options are the command-line flags.
type options struct {
	promptBytes int
	tasks       int
	verbose     bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}

// run parses args, runs every scenario and prints the report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fl := flag.NewFlagSet("cost", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.IntVar(&o.promptBytes, "prompt-bytes", 6000, "size of the delegating agent's AGENTS.md (its standing instructions), in bytes")
	fl.IntVar(&o.tasks, "tasks", 2, fmt.Sprintf("delegated tasks, one after the other in one chat (1 to %d)", len(requests)))
	fl.BoolVar(&o.verbose, "v", false, "print every call and the chat of each scenario")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if o.promptBytes < 0 {
		return fmt.Errorf("-prompt-bytes must not be negative")
	}
	if o.tasks < 1 || o.tasks > len(requests) {
		return fmt.Errorf("-tasks must be 1 to %d", len(requests))
	}
	var results []result
	for _, sc := range scenarios {
		r, err := runSwitchboard(ctx, sc, o)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		results = append(results, r)
	}
	r, err := runNanobot(ctx, o)
	if err != nil {
		return fmt.Errorf("nanobot: %w", err)
	}
	results = append(results, r)
	report(stdout, o, results)
	for _, r := range results {
		for i, calls := range r.tasks {
			if r.target > 0 && len(calls) > r.target {
				return fmt.Errorf("%s, task %d: %d model calls, over the target of %d", r.name, i+1, len(calls), r.target)
			}
		}
	}
	return nil
}
