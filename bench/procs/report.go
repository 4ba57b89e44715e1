package main

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Targets of issue 29.
const (
	startTarget   = 10 * time.Second
	latencyTarget = 100 * time.Millisecond
	idleTarget    = 15.0 // % of one core, all agents together
)

// How long a latency send is waited for before it counts as not seen
// (latencyWait), and then until it is given up (lateWait, from its send:
// the pull expiry of an inbox on NATS, after which a lost pull request is
// surely made again).
const (
	latencyWait = 10 * time.Second
	lateWait    = 2 * time.Minute
)

// print writes the report.
func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "agents        %d `switchboard recv` processes on %s\n", r.n, r.what)
	if r.loadBefore != "" {
		fmt.Fprintf(w, "load          load average (1, 5, 15 min) before the run %s; when all listened %s; after the idle window %s\n",
			r.loadBefore, orNone(r.loadStarted), orNone(r.loadIdle))
	}
	fmt.Fprintf(w, "start         %d of %d listening (registered) after %s   target ≤ %s: %s   raw: %d × `switchboard version` started the same way: %s\n",
		r.listening, r.n, r.lastListening.Round(time.Millisecond), startTarget, verdict(r.startMet()), r.n, r.rawStart.Round(time.Millisecond))
	if len(r.eachListening) > 0 {
		fmt.Fprintf(w, "              started all in %s; each listened, from its own start: %s\n",
			r.launched.Round(time.Millisecond), summary(r.eachListening, 0))
	}
	if cpuSupported {
		fmt.Fprintf(w, "              CPU until all listened: %.1f s for all (%.1f ms each); raw: %.1f s (%.1f ms each)\n",
			float64(r.startCPU)/1e9, float64(r.startCPU)/1e6/float64(r.n), r.rawStartCPU.Seconds(),
			float64(r.rawStartCPU.Microseconds())/1e3/float64(r.n))
		all := time.Duration(r.startCPU) + r.startBenchCPU
		fmt.Fprintf(w, "              the bench's own process meanwhile (starting them, and the servers it embeds): %.1f s; all that CPU on this machine's %d cores takes at least %s\n",
			r.startBenchCPU.Seconds(), runtime.NumCPU(), (all / time.Duration(runtime.NumCPU())).Round(time.Millisecond))
	}
	if r.bareStart > 0 {
		fmt.Fprintf(w, "              a bare Go program (standard library only, exits at once) started the same way: %s, CPU %.1f s (%.2f ms each)\n",
			r.bareStart.Round(time.Millisecond), r.bareStartCPU.Seconds(), float64(r.bareStartCPU.Microseconds())/1e3/float64(r.n))
	}
	reg := fmt.Sprintf("%d cards", r.registered)
	if r.regErr != nil {
		reg = "not read: " + r.regErr.Error()
	}
	fmt.Fprintf(w, "registry      %s; %d writes while they started, %s over %s idle (%s)\n",
		reg, r.startWrites, rate(r.idleWrites, r.idle), r.idle, r.writesHow)
	if r.reqHow != "" {
		fmt.Fprintf(w, "server        %d requests while they started (%.1f per agent), %s over %s idle (%s)\n",
			r.startRequests, float64(r.startRequests)/float64(r.n), rate(int(r.idleRequests), r.idle), r.idle, r.reqHow)
		if s := byKind(r.startKinds, float64(r.n), "%.1f"); s != "" {
			fmt.Fprintf(w, "              per agent while starting: %s\n", s)
		}
		if s := byKind(r.idleKinds, r.idle.Seconds(), "%.1f/s"); s != "" {
			fmt.Fprintf(w, "              idle, for all: %s\n", s)
		}
	}
	if r.folder() {
		fmt.Fprintf(w, "              rewrites of _registry.json   target ≤ %d while starting (one per agent) and ≤ %d idle (one per %s, whatever the number of agents): %s   raw: one per agent per heartbeat, %d over %s idle\n",
			r.n, idleWritesBound(r.idle), idleWriteEvery, verdict(r.writesMet()), r.n*int(r.idle/heartbeatEvery), r.idle)
	}
	if r.inotify >= 0 && r.folder() {
		fmt.Fprintf(w, "inotify       %d instance(s) held by the agents (max_user_instances %d)\n", r.inotify, r.inotifyLimit)
	}
	if cpuSupported && r.idle > 0 {
		raw := "not measured"
		if r.rawIdle {
			raw = fmt.Sprintf("%d Go processes that only wake every %s (bench/procs/idle): %.2f %%", r.n, heartbeatEvery, pct(r.rawCPU, r.rawIdleWindow))
		}
		fmt.Fprintf(w, "idle CPU      %.2f %% of one core for all %d (%.0f µs/s each)   target < %.0f %%: %s   raw: %s\n",
			r.idlePct(), r.n, float64(r.idleCPU)/1e3/r.idle.Seconds()/float64(r.n), idleTarget, verdict(r.idlePct() < idleTarget), raw)
		fmt.Fprintf(w, "              the bench's own process meanwhile (with the servers it embeds): %.2f %%\n",
			pct(r.benchCPU.Nanoseconds(), r.idle))
	}
	fmt.Fprintf(w, "latency       %s   target p99 ≤ %s: %s\n", summary(r.latencies, r.lost), latencyTarget, verdict(r.latencyMet()))
	if r.lost > 0 {
		late := make([]string, len(r.late))
		for i, d := range r.late {
			late[i] = fmt.Sprintf("%.1fs", d.Seconds())
		}
		seen := "none"
		if len(late) > 0 {
			seen = fmt.Sprintf("%d, after %s", len(late), strings.Join(late, ", "))
		}
		fmt.Fprintf(w, "              not seen within %s: %d; seen later: %s; not seen within %s of the send: %d\n",
			latencyWait, r.lost, seen, lateWait, r.lost-len(r.late))
	}
	switch {
	case r.rawErr != nil:
		fmt.Fprintf(w, "              raw: not measured: %v\n", r.rawErr)
	default:
		fmt.Fprintf(w, "              raw: %s (%s)\n", summary(r.rawLatencies, 0), r.rawWhat)
	}
	bc := fmt.Sprintf("%d of %d delivered, the last %s after the send began", r.broadcastGot, r.n, r.broadcastLast.Round(time.Millisecond))
	if r.broadcastErr != nil {
		bc += "; send failed: " + r.broadcastErr.Error()
	}
	fmt.Fprintf(w, "broadcast     %s   target all: %s\n", bc, verdict(r.broadcastGot == r.n))
	fmt.Fprintf(w, "stop          SIGTERM: %d of %d exited with an error, in %s\n", r.stopFailed, r.n, r.stopTook.Round(time.Millisecond))
	if r.offlineErr != nil {
		fmt.Fprintf(w, "              the cards after it: not read: %v\n", r.offlineErr)
	} else {
		fmt.Fprintf(w, "              %d of %d cards say offline after it (%d of them still in the registry's queue, for its next writer)\n",
			r.offline, r.n, r.offlineQueued)
	}
	if len(r.notes) > 0 {
		fmt.Fprintln(w, "the agents also said (times: what):")
		keys := slices.SortedFunc(maps.Keys(r.notes), func(a, b string) int { return r.notes[b] - r.notes[a] })
		for _, k := range keys[:min(len(keys), 8)] {
			fmt.Fprintf(w, "  %5d: %s\n", r.notes[k], k)
		}
	}
}

// idleWriteEvery is the fewest seconds between two idle rewrites of a
// folder root's registry the target allows: with the default offlineAfter
// of 30 s, the heartbeats renew the registry's copy every 15 s.
const idleWriteEvery = 10 * time.Second

// idleWritesBound is the most rewrites of _registry.json the target allows
// over an idle window.
func idleWritesBound(idle time.Duration) int { return 1 + int(idle/idleWriteEvery) }

// folder reports whether the run was on a folder root.
func (r *result) folder() bool { return strings.HasPrefix(r.what, "folder") }

// writesMet reports whether the registry's rewrites stayed within their
// bounds (only a folder root has one file that every update rewrites).
func (r *result) writesMet() bool {
	return !r.folder() || (r.startWrites <= r.n && r.idleWrites <= idleWritesBound(r.idle))
}

func (r *result) startMet() bool { return r.listening == r.n && r.lastListening <= startTarget }

func (r *result) idlePct() float64 { return pct(r.idleCPU, r.idle) }

func (r *result) latencyMet() bool {
	return r.lost == 0 && len(r.latencies) > 0 && percentile(r.latencies, 0.99) <= latencyTarget
}

// missed lists the targets missed.
func (r *result) missed() []string {
	var out []string
	if !r.startMet() {
		out = append(out, "start")
	}
	if cpuSupported && r.idle > 0 && r.idlePct() >= idleTarget {
		out = append(out, "idle CPU")
	}
	if !r.writesMet() {
		out = append(out, "registry rewrites")
	}
	if !r.latencyMet() {
		out = append(out, "latency")
	}
	if r.broadcastGot != r.n {
		out = append(out, "broadcast")
	}
	return out
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// pct is ns of CPU over window, in % of one core.
func pct(ns int64, window time.Duration) float64 {
	if window <= 0 {
		return 0
	}
	return 100 * float64(ns) / float64(window.Nanoseconds())
}

func rate(n int, over time.Duration) string {
	if over <= 0 {
		return fmt.Sprintf("%d", n)
	}
	return fmt.Sprintf("%d (%.2f/s)", n, float64(n)/over.Seconds())
}

// summary is "p50 … p99 … max … (n=N[, k lost])".
func summary(ds []time.Duration, lost int) string {
	if len(ds) == 0 {
		return fmt.Sprintf("no arrivals (%d lost)", lost)
	}
	s := fmt.Sprintf("p50 %s p99 %s max %s (n=%d", ms(percentile(ds, 0.5)), ms(percentile(ds, 0.99)),
		ms(slices.Max(ds)), len(ds)+lost)
	if lost > 0 {
		s += fmt.Sprintf(", %d lost", lost)
	}
	return s + ")"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// percentile returns the p-quantile of ds (nearest rank).
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

func orNone(s string) string {
	if s == "" {
		return "(not reached)"
	}
	return s
}

// byKind lists the ten commonest kinds of kinds, each count divided by
// per and written with format.
func byKind(kinds map[string]int, per float64, format string) string {
	keys := slices.SortedFunc(maps.Keys(kinds), func(a, b string) int { return kinds[b] - kinds[a] })
	var parts []string
	for _, k := range keys[:min(len(keys), 10)] {
		parts = append(parts, k+" "+fmt.Sprintf(format, float64(kinds[k])/per))
	}
	return strings.Join(parts, ", ")
}
