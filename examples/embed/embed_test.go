package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestEmbedAnswersOnStdout builds the example as a user would, enables its
// channel in a config file, types a line and reads the agent's answer.
func TestEmbedAnswersOnStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "embed")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".nanobot"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".nanobot", "config.json"),
		[]byte(`{"channels": {"stdio": {"enabled": true}}}`), 0o600))

	cmd := exec.Command(bin)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var errOut testkit.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	_, err = stdin.Write([]byte("sort 5 3 9 1\n"))
	require.NoError(t, err)
	require.NoError(t, stdin.Close(), "the end of input stops the host, which answers what it took in first")
	lines := make(chan string, 1)
	go func() {
		in := bufio.NewScanner(stdout)
		for in.Scan() {
			lines <- in.Text()
		}
		close(lines)
	}()
	require.Equal(t, "1 3 5 9", testkit.Recv(t, lines, "the answer on stdout"), "stderr: %s", &errOut)
	testkit.Closed(t, lines, "the end of the program's output")
	require.NoError(t, cmd.Wait(), "the program stops cleanly; stderr: %s", &errOut)
}

// TestArchitectureShowsThisProgram keeps docs/architecture.md's embedding
// example the program that this package compiles and tests.
func TestArchitectureShowsThisProgram(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	require.NoError(t, err)
	body := string(src)[strings.Index(string(src), "package main"):]
	if !strings.Contains(string(doc), "```go\n"+body+"```") {
		t.Fatal("docs/architecture.md must show examples/embed/main.go from its package clause on, as it is")
	}
}
