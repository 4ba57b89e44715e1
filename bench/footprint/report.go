package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// report is everything one run measured.
type report struct {
	runs   int
	settle time.Duration
	hello  subject
	bins   []subject
	sizes  []size
	starts []startResult
	idle   []idleMemory
}

// print writes the report as three tables.
func (r report) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "== start: %d runs of each, interleaved; median; ratio to hello in the same run\n", r.runs)
	fmt.Fprintln(tw, "command\twall\tcpu\twall/hello\tcpu/hello")
	base := r.starts[0]
	for _, s := range r.starts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%.2fx\n", s.label, ms(s.wall), ms(s.cpu),
			ratio(s.wall, base.wall), ratio(s.cpu, base.cpu))
	}
	fmt.Fprintln(tw)
	if len(r.idle) > 0 {
		fmt.Fprintf(tw, "== idle agent: recv on the folder store, %s after it listens\n", r.settle)
		fmt.Fprintln(tw, "binary\tRSS\tPSS\tanonymous\tfile (PSS)\tthreads")
		for _, m := range r.idle {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", m.name, mib(m.rss), mib(m.pss), mib(m.anon), mib(m.file), m.threads)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw, "== binary size")
	for _, s := range r.sizes {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, mib(s.bytes), s.path)
	}
	_ = tw.Flush()
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// mib formats n bytes in MiB.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// ratio is a/b, 0 when b is.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
