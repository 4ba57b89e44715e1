package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hostRunning is the message of the log line `switchboard run` writes once
// its channels and loop are running; the demo waits for it.
const hostRunning = `msg="host running"`

var webhookAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bwebhook=(\S+)`) })

// metricsAttr is the address in the log line `switchboard run` writes
// when it serves metrics (msg="metrics listening"), before "host running".
var metricsAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bmetrics=http://(\S+)/metrics`) })

// demoAgent is one `switchboard run` child process of the demo. Its
// stdout and stderr go to its log file.
type demoAgent struct {
	name    string
	config  string // its config file
	logPath string

	cmd     *exec.Cmd
	running string        // the "host running" line, once it came
	ready   chan string   // receives the "host running" line once
	exited  chan struct{} // closed once the process has exited
	exitErr error         // set before exited is closed

	mu      sync.Mutex
	tail    []string // the last log lines, for error messages
	metrics string   // host:port of its metrics listener, once logged
}

// startDemoAgent starts `exe run --config config` with env, in dir.
func startDemoAgent(exe, name, config, logPath, dir string, env []string) (*demoAgent, error) {
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s's log: %w", name, err)
	}
	cmd := exec.Command(exe, "run", "--config", config)
	cmd.Env, cmd.Dir, cmd.Stdout = env, dir, logFile
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	a := &demoAgent{name: name, config: config, logPath: logPath, cmd: cmd,
		ready: make(chan string, 1), exited: make(chan struct{})}
	go func() {
		a.copyLog(stderr, logFile)
		a.exitErr = cmd.Wait()
		logFile.Close()
		close(a.exited)
	}()
	return a, nil
}

// copyLog writes the child's stderr to its log file, line by line, notes
// the address of its metrics listener and reports the "host running"
// line.
func (a *demoAgent) copyLog(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		_, _ = io.WriteString(w, line+"\n")
		a.mu.Lock()
		a.tail = append(a.tail, line)
		if len(a.tail) > 5 {
			a.tail = a.tail[1:]
		}
		a.mu.Unlock()
		if m := metricsAttr().FindStringSubmatch(line); m != nil {
			a.mu.Lock()
			a.metrics = m[1]
			a.mu.Unlock()
		}
		if strings.Contains(line, hostRunning) {
			select {
			case a.ready <- line:
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, r) // an over-long line: keep the pipe flowing
}

// lastLine returns the last log line, for error messages.
func (a *demoAgent) lastLine() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.tail) == 0 {
		return "(no output)"
	}
	return a.tail[len(a.tail)-1]
}

// awaitRunning waits for the "host running" line and returns it.
func (a *demoAgent) awaitRunning(ctx context.Context) (string, error) {
	select {
	case line := <-a.ready:
		return line, nil
	case <-a.exited:
		return "", fmt.Errorf("%s exited before it was running (%v): %s (log: %s)", a.name, a.exitErr, a.lastLine(), a.logPath)
	case <-ctx.Done():
		return "", fmt.Errorf("%s was not running in time (log: %s): %w", a.name, a.logPath, context.Cause(ctx))
	}
}

// stop asks the process to stop (SIGTERM) and waits for it; past limit it
// is killed. It returns an error unless the process exited with status 0.
func (a *demoAgent) stop(limit time.Duration) error {
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop %s: %w", a.name, err)
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-a.exited:
	case <-t.C:
		_ = a.cmd.Process.Kill()
		<-a.exited
		return fmt.Errorf("%s did not stop within %s and was killed (log: %s)", a.name, limit, a.logPath)
	}
	if a.exitErr != nil {
		return fmt.Errorf("%s ended badly (%v): %s (log: %s)", a.name, a.exitErr, a.lastLine(), a.logPath)
	}
	return nil
}

// demoEnv is the children's environment: this one with HOME set to home
// and without NANOBOT_ overrides, which would change their configs.
func demoEnv(environ []string, home string) []string {
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || strings.HasPrefix(name, "NANOBOT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home)
}

// metricsAddr returns the host:port the agent serves its metrics on, ""
// when it logged none (it has none, or it is not running yet).
func (a *demoAgent) metricsAddr() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.metrics
}
