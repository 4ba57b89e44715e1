package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// result is what one run measured.
type result struct {
	what    string // the backend's description
	n       int
	rawIdle bool // the raw idle processes were measured

	rawStart    time.Duration
	rawStartCPU time.Duration // what the raw processes used, all together
	// bareStart and bareStartCPU are the same for a Go program that
	// imports only the standard library and exits at once (0 when the
	// idle program could not be built).
	bareStart, bareStartCPU time.Duration
	startCPU                int64 // nanoseconds the agents used until all listened
	// startBenchCPU is what the bench's own process used meanwhile: the
	// starting of the agents, and the servers it embeds.
	startBenchCPU time.Duration
	listening     int
	lastListening time.Duration
	launched      time.Duration   // starting every process took
	eachListening []time.Duration // each agent's own start to its listening
	registered    int
	regErr        error
	startWrites   int
	writesHow     string
	inotify       int
	inotifyLimit  int

	idle, rawIdleWindow time.Duration
	idleCPU, rawCPU     int64         // nanoseconds over the window
	benchCPU            time.Duration // of this process (and the servers it embeds) over the window
	idleWrites          int

	latencies, rawLatencies []time.Duration
	rawWhat                 string
	rawErr                  error
	lost                    int             // sends not seen within latencyWait
	late                    []time.Duration // of those, how long each took, seen before the stop

	broadcastGot  int
	broadcastLast time.Duration
	broadcastErr  error

	stopFailed int
	// offline and offlineQueued: the cards that said offline after the
	// stop, and of them those whose offline waited in the registry's
	// queue for its next writer.
	offline, offlineQueued int
	offlineErr             error
	stopTook               time.Duration
	// load averages (1, 5, 15 min) before the run, when every agent
	// listened and at the end of the idle window ("" unknown).
	loadBefore, loadStarted, loadIdle string
	// requests to the server (JetStream API requests and KV writes)
	// while the agents started and over the idle window; reqHow says
	// what is counted ("" when the backend does not count).
	startRequests, idleRequests int64
	reqHow                      string
	startKinds, idleKinds       map[string]int // startRequests and idleRequests by kind
	notes                       map[string]int // the agents' other stderr lines, by what they say
}

// measure runs the whole measurement on be.
func measure(ctx context.Context, o options, be backend, bin, self string, log io.Writer) (*result, error) {
	r := &result{what: be.describe(), n: o.n, idle: o.idle, inotifyLimit: inotifyLimit(), loadBefore: loadAvg()}
	rc, counts := be.(requestCounter)
	var kinds map[string]int
	reqs := func() int64 {
		if !counts {
			return 0
		}
		n, k, how := rc.requests()
		r.reqHow, kinds = how, k
		return n
	}
	env := append(isolatedEnv(o.work), be.env()...)

	fmt.Fprintf(log, "raw: starting %d × switchboard version\n", o.n)
	var err error
	if r.rawStart, r.rawStartCPU, err = rawStart(ctx, o.n, env, bin, "version"); err != nil {
		return nil, err
	}
	if o.idleBin != "" {
		fmt.Fprintf(log, "raw: starting %d × a bare Go program\n", o.n)
		if r.bareStart, r.bareStartCPU, err = rawStart(ctx, o.n, env, o.idleBin, "0"); err != nil {
			return nil, err
		}
	}
	if cpuSupported && o.idle > 0 && o.idleBin != "" {
		r.rawIdleWindow = min(o.idle, 20*time.Second)
		fmt.Fprintf(log, "raw: %d idle processes for %s\n", o.n, r.rawIdleWindow)
		if r.rawCPU, err = rawIdle(ctx, o.idleBin, o.n, 3*time.Second, r.rawIdleWindow); err != nil {
			return nil, err
		}
		r.rawIdle = true
	}

	fmt.Fprintf(log, "starting %d agents on %s\n", o.n, r.what)
	writes0, req0 := writesNow(be), reqs()
	kinds0 := kinds
	selfStart := selfCPU()
	f, err := startFleet(ctx, bin, o.n, be.agentArgs, env)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			f.stop(ctx)
		}
	}()
	r.listening, r.lastListening, r.eachListening = f.awaitListening(ctx, o.startLimit)
	r.launched, r.loadStarted = f.launched, loadAvg()
	r.startRequests = reqs() - req0
	r.startKinds = kindsSince(kinds, kinds0)
	r.startCPU, r.startBenchCPU = cpuNanos(f.pids()), selfCPU()-selfStart
	w, how := be.writes()
	r.startWrites, r.writesHow = w-writes0, how
	r.registered, r.regErr = be.registered(ctx)
	r.inotify = inotifyInstances(f.pids())
	if r.listening < o.n {
		r.notes = f.noteCounts()
		return r, fmt.Errorf("only %d of %d agents listen after %s", r.listening, o.n, o.startLimit)
	}

	fmt.Fprintf(log, "all listen after %s; idle for %s after %s\n", r.lastListening.Round(time.Millisecond), o.idle, o.warmup)
	if err := sleep(ctx, o.warmup); err != nil {
		return nil, err
	}
	pids := f.pids()
	cpu0, w0, self0, req1 := cpuNanos(pids), writesNow(be), selfCPU(), reqs()
	kinds1 := kinds
	if err := sleep(ctx, o.idle); err != nil {
		return nil, err
	}
	r.idleCPU, r.idleWrites, r.benchCPU = cpuNanos(pids)-cpu0, writesNow(be)-w0, selfCPU()-self0
	r.idleRequests, r.loadIdle = reqs()-req1, loadAvg()
	r.idleKinds = kindsSince(kinds, kinds1)

	fmt.Fprintf(log, "latency: %d sends, one at a time\n", o.sends)
	type pending struct {
		got   <-chan time.Time
		begin time.Time
	}
	var overdue []pending
	for i := range o.sends {
		to := agentID((i * 7919) % o.n)
		id := envelope.NewID()
		got := f.expect(id)
		begin := time.Now()
		if err := be.send(ctx, to, id, "ping "+id); err != nil {
			return nil, fmt.Errorf("send to %s: %w", to, err)
		}
		select {
		case at := <-got:
			r.latencies = append(r.latencies, at.Sub(begin))
		case <-time.After(latencyWait):
			r.lost++
			overdue = append(overdue, pending{got, begin})
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if err := sleep(ctx, o.gap); err != nil {
			return nil, err
		}
	}
	r.rawLatencies, r.rawWhat, r.rawErr = be.rawLatency(ctx, self, o.sends, o.gap)

	fmt.Fprintln(log, "broadcast: send --to all")
	token := "broadcast " + envelope.NewID()
	done, arrivals := f.expectEverywhere(token)
	begin := time.Now()
	cmd := exec.CommandContext(ctx, bin, be.broadcastArgs(token)...)
	cmd.Env = append(env, broadcastEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.broadcastErr = fmt.Errorf("%w: %s", err, firstLine(out))
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for _, at := range arrivals() {
		if !at.IsZero() {
			r.broadcastGot++
			r.broadcastLast = max(r.broadcastLast, at.Sub(begin))
		}
	}

	// A send not seen within latencyWait may still come (a pull request
	// a cluster lost is made again after missed heartbeats): it is waited
	// for until lateWait after it was sent, and counted late or never.
	for _, p := range overdue {
		select {
		case at := <-p.got:
			r.late = append(r.late, at.Sub(p.begin))
		case <-time.After(time.Until(p.begin.Add(lateWait))):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	fmt.Fprintln(log, "stopping the agents")
	stopped = true
	r.stopFailed, r.stopTook = f.stop(ctx)
	r.notes = f.noteCounts()
	r.offline, r.offlineQueued, r.offlineErr = be.offline(ctx)
	return r, nil
}

func writesNow(be backend) int {
	n, _ := be.writes()
	return n
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// isolatedEnv is this process's environment without the user's nanobot
// settings and home (so no config of the user's is read).
func isolatedEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NANOBOT_") || strings.HasPrefix(kv, "HOME=") ||
			strings.HasPrefix(kv, "SWITCHBOARD_WATCH=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+dir+"/home")
}

// kindsSince is the requests of each kind in now and not in before.
func kindsSince(now, before map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range now {
		if d := n - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}
