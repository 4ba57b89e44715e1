package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/switchboard-dev/switchboard/bench/internal/binflag"
)

// options are the command-line flags.
type options struct {
	n    int
	root string
	runs int
	keep bool
	bins binflag.Binaries
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs the harness. It returns the exit status: 0, 1
// on failure, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fl := flag.NewFlagSet("views", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.IntVar(&o.n, "n", 100000, "messages in the tree")
	fl.StringVar(&o.root, "root", os.TempDir(), "folder in which to make the temporary mailbox tree (pick the disk to measure)")
	fl.IntVar(&o.runs, "runs", 5, "timed runs of each view per binary (after one untimed first run)")
	fl.BoolVar(&o.keep, "keep", false, "keep the temporary tree")
	fl.Var(&o.bins, "bin", "a switchboard binary to measure, as `NAME=PATH` (repeat to compare; default: build ./cmd/switchboard)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 || o.n < 10 || o.runs < 1 {
		fmt.Fprintln(stderr, "views bench: -n must be at least 10, -runs at least 1, and no arguments; see -h")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := harness(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "views bench:", err)
		return 1
	}
	return 0
}

// harness makes the tree, then times every view with every binary.
func harness(ctx context.Context, o options, out io.Writer) (err error) {
	work, err := os.MkdirTemp(o.root, "switchboard-views-")
	if err != nil {
		return fmt.Errorf("make work folder: %w", err)
	}
	if o.keep {
		defer fmt.Fprintln(out, "kept", work)
	} else {
		defer func() { err = errors.Join(err, os.RemoveAll(work)) }()
	}
	if len(o.bins) == 0 {
		path := filepath.Join(work, "switchboard")
		build := exec.CommandContext(ctx, "go", "build", "-o", path, "./cmd/switchboard")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build ./cmd/switchboard (run from the repository's top folder, or give -bin): %w", err)
		}
		o.bins = binflag.Binaries{{Name: "this", Path: path}}
	}
	root := filepath.Join(work, "tree")
	start := time.Now()
	info, err := buildTree(ctx, root, o.n)
	if err != nil {
		return fmt.Errorf("write the tree: %w", err)
	}
	fmt.Fprintf(out, "tree: %d messages (%d waiting in %s's inbox) under %s, written in %.1f s\n",
		info.files, o.n/2, inboxAgent, root, time.Since(start).Seconds())
	printLoad(out, "start")
	views := []struct {
		name string
		args []string
	}{
		{"inbox " + inboxAgent, []string{"inbox", inboxAgent}},
		{"inbox " + inboxAgent + " --json", []string{"inbox", inboxAgent, "--json"}},
		{"thread ID", []string{"thread", info.threadID}},
		{"pending", []string{"pending"}},
		{"pending " + inboxAgent, []string{"pending", inboxAgent}},
		{"agents", []string{"agents"}},
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for i, b := range o.bins { // what any command costs: the binary's own pages
		res, err := measure(ctx, b.Path, filepath.Join(work, "cache", fmt.Sprint(i)), root, []string{"version"}, o.runs)
		if err != nil {
			return fmt.Errorf("version with %s: %w", b.Name, err)
		}
		fmt.Fprintf(out, "%s: switchboard version takes %s, peak RSS %.1f MiB\n", b.Name, secs(res.median()), float64(res.peakRSS)/(1<<20))
	}
	fmt.Fprintln(tw, "view\tbinary\tfirst run\tfirst RSS\tmedian\tmin\tmax\tpeak RSS\tpeak heap\tlines\t")
	for _, v := range views {
		for i, b := range o.bins {
			cache := filepath.Join(work, "cache", fmt.Sprint(i))
			res, err := measure(ctx, b.Path, cache, root, v.args, o.runs)
			if err != nil {
				return fmt.Errorf("%s with %s: %w", v.name, b.Name, err)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f MiB\t%s\t%s\t%s\t%.1f MiB\t%d MB\t%d\t\n", v.name, b.Name, secs(res.first),
				float64(res.firstRSS)/(1<<20), secs(res.median()), secs(res.min()), secs(res.max()),
				float64(res.peakRSS)/(1<<20), res.heap(), res.lines)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "  wall time per process (exec to exit) and its peak resident set (%s); first run: the first of that binary\n"+
		"  and view (for the first view that uses the index, the run that builds it: each binary has its own user cache\n"+
		"  folder); peak RSS: the largest of the timed runs; peak heap: the median over the timed runs of the largest\n"+
		"  Go heap each saw, from GODEBUG=gctrace=1 (4 MB: no collection ran)\n", rssSource())
	printLoad(out, "end")
	return nil
}

// secs formats d in seconds with millisecond precision.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// printLoad prints the load average, to judge how busy the machine was.
func printLoad(out io.Writer, when string) {
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the %s: %s\n", when, strings.Join(strings.Fields(string(data))[:3], " "))
	}
}
