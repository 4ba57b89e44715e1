package demo

import (
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/otlpcollector"
	"github.com/switchboard-dev/switchboard/tracing"
)

// demoObserve is what `demo --observe` adds to the demo: an OTLP/HTTP
// receiver in the demo's process that both agents export their spans to
// (their configs' observability.tracing), and the trace of the
// conversation found in the mailbox.
type demoObserve struct {
	col *otlpcollector.Collector
	// msgID and traceID are a mailbox message of the conversation and
	// its trace, once the answer came.
	msgID, traceID string
}

// startDemoObserve starts the receiver on a free port of 127.0.0.1.
func startDemoObserve() (*demoObserve, error) {
	col, err := otlpcollector.Listen("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("--observe: %w", err)
	}
	return &demoObserve{col: col}, nil
}

// endpoint is the receiver's base URL, for the agents' configs ("" when
// the demo does not observe).
func (o *demoObserve) endpoint() string {
	if o == nil {
		return ""
	}
	return o.col.Endpoint()
}

func (o *demoObserve) close() {
	if o != nil {
		_ = o.col.Close()
	}
}

// lookLine is one "where to look" line of --observe: what, and where.
type lookLine struct{ what, where string }

// lookLines are the places --observe points at once both agents run:
// the trace receiver, each agent's metrics listener (the address it
// logged) and log, and the mailbox.
func (d *demoRun) lookLines() []lookLine {
	lines := []lookLine{{"traces", d.obs.col.Endpoint() + otlpcollector.TracesPath +
		"  (OTLP/HTTP receiver in this process: both agents export their spans to it; the trees are printed when the agents stop)"}}
	for _, ag := range d.agents {
		if addr := ag.metricsAddr(); addr != "" {
			base := "http://" + addr
			lines = append(lines, lookLine{ag.name + " metrics", base + "/metrics  " + base + "/healthz  " + base + "/readyz"})
		}
	}
	for _, ag := range d.agents {
		lines = append(lines, lookLine{ag.name + " log", ag.logPath})
	}
	lines = append(lines, lookLine{"mailbox", "switchboard " + d.storeFlags() + " agents  (and thread ID, pending, console ...)"})
	return lines
}

// printLook prints the "where to look" lines.
func (d *demoRun) printLook() {
	lines := d.lookLines()
	width := 0
	for _, l := range lines {
		width = max(width, len(l.what))
	}
	fmt.Fprintln(d.out, "where to look (--observe):")
	for _, l := range lines {
		fmt.Fprintf(d.out, "  %s  %s\n", pad(l.what, width), l.where)
	}
	fmt.Fprintln(d.out)
}

// storeFlags are the flags that point a switchboard command at the
// demo's mailbox: its folder, or researcher's config (which names the
// NATS server).
func (d *demoRun) storeFlags() string {
	if d.be.kind == demoFS {
		return "--root " + d.layout.root
	}
	return "--config " + d.layout.config(demoResearcher)
}

// noteTrace finds the trace of the conversation in the mailbox messages
// between the agents (their traceparent) and prints it with the command
// that shows it.
func (d *demoRun) noteTrace(mail []demoLine) {
	for _, l := range mail {
		if id := tracing.TraceID(l.traceparent); id != "" {
			d.obs.msgID, d.obs.traceID = l.id, id
			fmt.Fprintf(d.out, "the conversation is trace %s (switchboard %s thread %s shows it)\n", id, d.storeFlags(), l.id)
			return
		}
	}
	fmt.Fprintln(d.out, "the mailbox messages carry no trace context: see the agents' logs")
}

// printTraces prints the tree of every trace the receiver got, once the
// agents stopped (each flushes its spans before it exits). No span at all
// is an error: the agents could not export.
func (d *demoRun) printTraces() error {
	spans := d.obs.col.Spans()
	if len(spans) == 0 {
		return fmt.Errorf("--observe: no span came to the demo's receiver at %s (logs: %s, %s)",
			d.obs.col.Endpoint(), d.layout.log(demoResearcher), d.layout.log(demoCoder))
	}
	traces := otlpcollector.Traces(spans)
	fmt.Fprintf(d.out, "\nthe demo's receiver got %d spans in %d %s (start: since the trace began; took: the span's duration):\n",
		len(spans), len(traces), plural(len(traces), "trace", "traces"))
	for _, t := range traces {
		fmt.Fprintln(d.out)
		var b strings.Builder
		_ = t.Render(&b)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n") {
			fmt.Fprint(d.out, "  ", line)
		}
		fmt.Fprintln(d.out)
		if id := firstMailboxMessage(t); id != "" {
			fmt.Fprintf(d.out, "  its mailbox messages: switchboard %s thread %s%s\n", d.storeFlags(), id, d.afterStop())
		}
	}
	if n := d.obs.col.Dropped(); n > 0 {
		fmt.Fprintf(d.out, "\n(%d more spans came past the receiver's limit of %d and are not shown)\n", n, otlpcollector.DefaultMaxSpans)
	}
	return nil
}

// afterStop says when a command on the mailbox works after the demo: not
// once the demo's nats-server stopped.
func (d *demoRun) afterStop() string {
	if d.be.stop != nil {
		return "  (while the demo's nats-server runs: with --keep, before Ctrl-C)"
	}
	return ""
}

// firstMailboxMessage returns the id of the trace's first mailbox
// message, "" when it has none.
func firstMailboxMessage(t otlpcollector.Trace) string {
	for _, sp := range t.Spans {
		if sp.Attrs[string(tracing.AttrMessagingSystem)] == tracing.MailboxSystem {
			if id := sp.Attrs[string(tracing.AttrMessagingMessageID)]; id != "" {
				return id
			}
		}
	}
	return ""
}

// observeEnv drops, with --observe, the OTEL_ variables from the agents'
// environment: they would win over the configs that send the spans to
// the demo's receiver.
func observeEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OTEL_") {
			out = append(out, kv)
		}
	}
	return out
}
