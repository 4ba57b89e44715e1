package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/bench/internal/binflag"
)

// options are the command-line flags.
type options struct {
	n    int
	rate float64
	dur  time.Duration
	root string
	bins binflag.Binaries
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and measures each binary; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.n, "n", 20000, "messages in the tree")
	fs.Float64Var(&o.rate, "rate", 5, "messages delivered per second while the page is open")
	fs.DurationVar(&o.dur, "for", 30*time.Second, "how long messages are delivered")
	fs.StringVar(&o.root, "root", "", "folder for the trees (default: a temporary folder)")
	fs.Var(&o.bins, "bin", "NAME=PATH of a switchboard binary to measure (repeat; default: build ./cmd/switchboard)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.n < 1 || o.rate <= 0 || o.dur <= 0 {
		fmt.Fprintln(stderr, "console: -n, -rate and -for must be positive")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, err := os.MkdirTemp(o.root, "console-bench-")
	if err != nil {
		fmt.Fprintln(stderr, "console:", err)
		return 1
	}
	defer os.RemoveAll(base)
	if len(o.bins) == 0 {
		path := filepath.Join(base, "switchboard")
		build := exec.CommandContext(ctx, "go", "build", "-o", path, "./cmd/switchboard")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(stderr, "console: build:", err)
			return 1
		}
		o.bins = binflag.Binaries{{Name: "this checkout", Path: path}}
	}
	fmt.Fprintf(stdout, "one open console page, %d stored messages, %g messages/s for %s\n\n", o.n, o.rate, o.dur)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "binary\tCPU s, whole run\tCPU s, first state\tCPU s while messages arrive\tof one core\tstate reads\tstate size\tevents")
	for i, bin := range o.bins {
		root := filepath.Join(base, fmt.Sprintf("tree%d", i))
		r, err := measure(ctx, bin.Path, root, o)
		if err != nil {
			fmt.Fprintf(stderr, "console: %s: %v\n", bin.Name, err)
			return 1
		}
		first, arriving, share := "?", "?", "?"
		if r.loadKnown {
			busy := r.cpu - r.load
			first, arriving = fmt.Sprintf("%.2f", r.load.Seconds()), fmt.Sprintf("%.2f", busy.Seconds())
			share = fmt.Sprintf("%.1f %%", 100*busy.Seconds()/r.arriving.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\t%d\t%s\t%d\n", bin.Name, r.cpu.Seconds(), first, arriving, share,
			r.reads, size(r.stateBytes), r.events)
		_ = os.RemoveAll(root)
	}
	return errOf(tw.Flush())
}

func errOf(err error) int {
	if err != nil {
		return 1
	}
	return 0
}

// size prints n bytes for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
