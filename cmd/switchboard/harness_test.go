package main_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testVersion is stamped into the binary with -ldflags.
const testVersion = "v0.0.0-test"

var (
	bin        string   // the switchboard binary built by TestMain
	buildFlags []string // extra go build flags (-race when the tests run with it)
	raceBuild  bool     // the binary runs under the race detector (its memory is several times larger)
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" { // a helper process: no binary to build
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "switchboard-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "switchboard")
	// One build of the one program, for every test of this binary; the
	// demo's NATS server, switchboard-natsd, is built beside it by the same
	// go build, where the demo finds it.
	args := append([]string{"build", "-o", dir + string(filepath.Separator), "-ldflags", "-X main.version=" + testVersion}, buildFlags...)
	build := exec.Command("go", append(args, ".", "../switchboard-natsd")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build switchboard and switchboard-natsd:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandbox is one test's world: a mailbox root (mode 0700) and a home
// folder without a config file.
type sandbox struct {
	t    *testing.T
	root string
	home string
	// environ is added to the environment of every run (NANOBOT_ overrides).
	environ []string
	// global are the global flags of every run (nil: --root root).
	global []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	base := t.TempDir()
	s := &sandbox{t: t, root: filepath.Join(base, "mailboxes"), home: filepath.Join(base, "home")}
	require.NoError(t, os.Mkdir(s.root, 0o700))
	require.NoError(t, os.Chmod(s.root, 0o700)) // whatever the umask
	require.NoError(t, os.Mkdir(s.home, 0o700))
	return s
}

// env is the environment of the binary: no NANOBOT_ or OTEL_ settings, no colour
// setting, and a home without ~/.nanobot.
func (s *sandbox) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "NANOBOT_") || strings.HasPrefix(name, "OTEL_") || name == "HOME" || name == "XDG_CACHE_HOME" ||
			name == "NO_COLOR" || strings.HasPrefix(name, "GORACE") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+s.home, "GORACE=halt_on_error=1 atexit_sleep_ms=0")
	return append(env, s.environ...)
}

// command returns the binary run with the global flags (--root) and args.
func (s *sandbox) command(ctx context.Context, args ...string) *exec.Cmd {
	global := s.global
	if global == nil {
		global = []string{"--root", s.root}
	}
	cmd := exec.CommandContext(ctx, bin, append(slices.Clone(global), args...)...)
	cmd.Env = s.env()
	cmd.Dir = s.home
	return cmd
}

// result is what a finished run printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary to its end.
func (s *sandbox) run(args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	cmd := s.command(ctx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		s.t.Fatalf("run %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

// ok runs the binary and requires exit status 0.
func (s *sandbox) ok(args ...string) string {
	s.t.Helper()
	r := s.run(args...)
	require.Equal(s.t, 0, r.code, "switchboard %v: stderr %q", args, r.stderr)
	return r.stdout
}

// proc is a running switchboard whose output is read line by line.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout chan string // closed at EOF
	stderr chan string
	done   chan struct{} // closed when it exited
	code   int
	errLog strings.Builder // every stderr line, for failure messages
	mu     sync.Mutex
}

// start starts the binary with --root and args.
func (s *sandbox) start(args ...string) *proc {
	s.t.Helper()
	cmd := s.command(context.Background(), args...)
	p := &proc{t: s.t, cmd: cmd, stdout: make(chan string, 256), stderr: make(chan string, 256), done: make(chan struct{})}
	outPipe, err := cmd.StdoutPipe()
	require.NoError(s.t, err)
	errPipe, err := cmd.StderrPipe()
	require.NoError(s.t, err)
	require.NoError(s.t, cmd.Start())
	var readers sync.WaitGroup
	readers.Go(func() { p.lines(outPipe, p.stdout, false) })
	readers.Go(func() { p.lines(errPipe, p.stderr, true) })
	go func() {
		readers.Wait() // all output read before Wait closes the pipes
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	s.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) lines(r io.Reader, out chan<- string, keep bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if keep {
			p.mu.Lock()
			p.errLog.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		out <- sc.Text()
	}
	close(out)
}

func (p *proc) stderrSoFar() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errLog.String()
}

// next returns the next line of ch, failing the test at EOF or after
// testkit.WaitLimit.
func (p *proc) next(ch <-chan string, what string) string {
	p.t.Helper()
	select {
	case line, ok := <-ch:
		if !ok {
			<-p.done
			p.t.Fatalf("%s: output ended (exit %d), stderr:\n%s", what, p.code, p.stderrSoFar())
		}
		return line
	case <-time.After(testkit.WaitLimit):
		p.t.Fatalf("%s: nothing within %s, stderr:\n%s", what, testkit.WaitLimit, p.stderrSoFar())
	}
	return ""
}

// awaitStderr reads stderr until a line contains want.
func (p *proc) awaitStderr(want string) {
	p.t.Helper()
	for {
		if line := p.next(p.stderr, "waiting for "+want); strings.Contains(line, want) {
			return
		}
	}
}

// signal sends sig to the process.
func (p *proc) signal(sig os.Signal) {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(sig))
}

// wait waits for the exit and returns the status.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(testkit.WaitLimit):
		p.t.Fatalf("still running after %s, stderr:\n%s", testkit.WaitLimit, p.stderrSoFar())
	}
	return -1
}

// rest returns the remaining lines of ch once the process has exited.
func (p *proc) rest(ch <-chan string) []string {
	p.t.Helper()
	p.wait()
	var out []string
	for line := range ch {
		out = append(out, line)
	}
	return out
}

// files lists every file under dir (relative paths), sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return out
}

// msgFiles lists the message files of one of an agent's folders.
func (s *sandbox) msgFiles(agent, box string) []string {
	s.t.Helper()
	ents, err := os.ReadDir(filepath.Join(s.root, agent, box))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(s.t, err)
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".msg.json") {
			names = append(names, e.Name())
		}
	}
	return names
}

// assertOneLineError checks the contract for errors: exit code, nothing on
// stdout, one line on stderr starting "switchboard: ".
func assertOneLineError(t *testing.T, r result, code int, contains string) {
	t.Helper()
	assert.Equal(t, code, r.code, "exit status; stderr %q", r.stderr)
	assert.Empty(t, r.stdout, "stdout")
	assert.True(t, strings.HasPrefix(r.stderr, "switchboard: "), "stderr starts with the program name: %q", r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line on stderr: %q", r.stderr)
	assert.Contains(t, r.stderr, contains)
}

// sigterm is the signal a service manager stops a process with.
var sigterm os.Signal = syscall.SIGTERM
