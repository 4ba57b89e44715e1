package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fleet is the agent processes under measurement.
type fleet struct {
	procs    []*agentProc
	start    time.Time     // when the first was started
	launched time.Duration // how long starting them all took

	listening chan listened // one per agent, when it says it listens
	exited    chan struct{} // one per agent, when it exits

	mu       sync.Mutex
	waiters  map[string]chan time.Time // message id → its arrival
	tokens   map[string][]time.Time    // broadcast text → arrival at each agent (zero: not yet)
	tokenHit map[string]chan struct{}  // broadcast text → closed when every agent has it
	notes    map[string]int            // stderr lines other than "listening", by what they say
}

// agentProc is one agent process.
type agentProc struct {
	index   int
	id      string
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{} // closed when it exited
	err     error
}

// listened is an agent saying it listens.
type listened struct {
	p  *agentProc
	at time.Time
}

// agentID names agent i.
func agentID(i int) string { return fmt.Sprintf("a%04d", i) }

// startFleet starts n agents, agent i with args(i), as fast as it can.
func startFleet(ctx context.Context, bin string, n int, args func(i int) []string, env []string) (*fleet, error) {
	f := &fleet{listening: make(chan listened, n), exited: make(chan struct{}, n), waiters: map[string]chan time.Time{},
		tokens: map[string][]time.Time{}, tokenHit: map[string]chan struct{}{}, notes: map[string]int{}}
	f.start = time.Now()
	for i := range n {
		p := &agentProc{index: i, id: agentID(i), done: make(chan struct{})}
		p.cmd = exec.Command(bin, args(i)...)
		p.cmd.Env = env
		stdout, err := p.cmd.StdoutPipe()
		if err != nil {
			f.stop(ctx)
			return nil, err
		}
		stderr, err := p.cmd.StderrPipe()
		if err != nil {
			f.stop(ctx)
			return nil, err
		}
		p.started = time.Now()
		if err := p.cmd.Start(); err != nil {
			f.stop(ctx)
			return nil, fmt.Errorf("start agent %d: %w (raise the limits on processes and open files)", i, err)
		}
		f.procs = append(f.procs, p)
		var readers sync.WaitGroup
		readers.Go(func() { f.readStdout(p, stdout) })
		readers.Go(func() { f.readStderr(p, stderr) })
		go func() {
			readers.Wait()
			p.err = p.cmd.Wait()
			close(p.done)
			f.exited <- struct{}{}
		}()
	}
	f.launched = time.Since(f.start)
	return f, nil
}

// line is what the bench reads of recv's --json lines.
type line struct {
	Content string `json:"content"`
	Mailbox struct {
		MessageID string `json:"message_id"`
	} `json:"mailbox"`
}

// readStdout records each message the agent prints.
func (f *fleet) readStdout(p *agentProc, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		at := time.Now()
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		f.arrived(p.index, l, at)
	}
}

func (f *fleet) arrived(agent int, l line, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch, ok := f.waiters[l.Mailbox.MessageID]; ok {
		delete(f.waiters, l.Mailbox.MessageID)
		ch <- at
	}
	if times, ok := f.tokens[l.Content]; ok && times[agent].IsZero() {
		times[agent] = at
		if allSet(times) {
			close(f.tokenHit[l.Content])
		}
	}
}

func allSet(times []time.Time) bool {
	for _, t := range times {
		if t.IsZero() {
			return false
		}
	}
	return true
}

// readStderr records when the agent listens, and keeps a few of its
// other lines.
func (f *fleet) readStderr(p *agentProc, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		text := sc.Text()
		if strings.HasPrefix(text, "listening as ") {
			f.listening <- listened{p, time.Now()}
			continue
		}
		f.mu.Lock()
		f.notes[gist(text)]++
		f.mu.Unlock()
	}
}

// awaitListening waits until every agent listens, or until limit; it
// returns how many listen, when the last began to, and how long each took
// from its own start.
func (f *fleet) awaitListening(ctx context.Context, limit time.Duration) (int, time.Duration, []time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	last := f.start
	var each []time.Duration
	exited := 0
	for n := 0; n < len(f.procs); {
		select {
		case l := <-f.listening:
			n++
			last = l.at
			each = append(each, l.at.Sub(l.p.started))
		case <-f.exited:
			if exited++; exited+n >= len(f.procs) && n < len(f.procs) {
				return n, last.Sub(f.start), each // the others are gone
			}
		case <-timer.C:
			return n, last.Sub(f.start), each
		case <-ctx.Done():
			return n, last.Sub(f.start), each
		}
	}
	return len(f.procs), last.Sub(f.start), each
}

// expect returns the channel that receives the time message id arrives.
func (f *fleet) expect(id string) <-chan time.Time {
	ch := make(chan time.Time, 1)
	f.mu.Lock()
	f.waiters[id] = ch
	f.mu.Unlock()
	return ch
}

// expectEverywhere prepares to see text arrive at every agent; done is
// closed once it did.
func (f *fleet) expectEverywhere(text string) (done <-chan struct{}, arrivals func() []time.Time) {
	hit := make(chan struct{})
	f.mu.Lock()
	f.tokens[text] = make([]time.Time, len(f.procs))
	f.tokenHit[text] = hit
	f.mu.Unlock()
	return hit, func() []time.Time {
		f.mu.Lock()
		defer f.mu.Unlock()
		return append([]time.Time(nil), f.tokens[text]...)
	}
}

// pids returns the agents' process ids.
func (f *fleet) pids() []int {
	out := make([]int, 0, len(f.procs))
	for _, p := range f.procs {
		if p.cmd.Process != nil {
			out = append(out, p.cmd.Process.Pid)
		}
	}
	return out
}

// stop sends SIGTERM to every agent and waits for them to exit (SIGKILL
// after a minute). It reports how many exited with an error and how long
// it took.
func (f *fleet) stop(ctx context.Context) (failed int, took time.Duration) {
	begin := time.Now()
	for _, p := range f.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	for _, p := range f.procs {
		select {
		case <-p.done:
		case <-limit.C:
			for _, q := range f.procs {
				_ = q.cmd.Process.Kill()
			}
			<-p.done
		case <-ctx.Done():
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if p.err != nil {
			failed++
		}
	}
	return failed, time.Since(begin)
}

// noteCounts returns the agents' other stderr lines, by what they say.
func (f *fleet) noteCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.notes)
}

// gist is what a log line says, without its time, agent and paths: the
// msg and err of a slog line, else the line.
func gist(line string) string {
	msg, ok := field(line, "msg")
	if !ok {
		return line
	}
	if err, ok := field(line, "err"); ok {
		msg += ": " + err
	}
	return msg
}

// field returns the value of key in a slog text line.
func field(line, key string) (string, bool) {
	_, rest, ok := strings.Cut(line, " "+key+"=")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, `"`) {
		if v, err := strconv.QuotedPrefix(rest); err == nil {
			s, _ := strconv.Unquote(v)
			return s, true
		}
	}
	v, _, _ := strings.Cut(rest, " ")
	return v, true
}
