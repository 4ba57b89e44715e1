package main_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// jsDir is testdata/a2a-js: the JavaScript client and the locked version
// of the A2A SDK for JavaScript it uses.
const jsDir = "testdata/a2a-js"

// npmTimeout bounds the install of the JavaScript SDK.
const npmTimeout = 3 * time.Minute

// jsSDK returns a folder holding testdata/a2a-js with its dependencies
// installed: $SWITCHBOARD_A2A_JS when set (.ci/run prepares it), else a
// folder under the user's cache named by the lock file's hash, installed
// with npm ci the first time. Without node, or when npm cannot install
// the SDK (no registry), the test is skipped, and fails when CI=true.
func jsSDK(t *testing.T) (node, dir string) {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" (CI=true: .ci/run installs node and npm)", args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed: %v", err)
	}
	if dir = os.Getenv("SWITCHBOARD_A2A_JS"); dir != "" {
		return node, dir
	}
	lock, err := os.ReadFile(filepath.Join(jsDir, "package-lock.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir = filepath.Join(cache, "switchboard-test", "a2a-js-"+hex.EncodeToString(sum[:6]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err == nil {
		return node, dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skip("npm is not installed: %v", err)
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	require.NoError(t, copyFiles(jsDir, tmp, "package.json", "package-lock.json"))
	ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		skip("npm ci cannot install @a2a-js/sdk: %v: %s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, statErr := os.Stat(dir); statErr != nil { // not installed meanwhile by another run
			require.NoError(t, err)
		}
	}
	return node, dir
}

// copyFiles copies the named files of folder from to folder to.
func copyFiles(from, to string, names ...string) error {
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, n), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// The A2A SDK for JavaScript (@a2a-js/sdk, run by node) gets a task done
// by a `switchboard run` agent through `switchboard a2a serve`, with the
// gateway's bearer token.
func TestA2AJavaScriptClient(t *testing.T) {
	t.Parallel()
	node, dir := jsSDK(t)
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderA2AConfig(false)), "run")
	coder.awaitStderr("host running")
	s.environ = append(s.environ, "NANOBOT_CHANNELS__A2A__TOKEN=js-s3cret")
	_, url := s.startGateway("--agent", "coder")

	script := filepath.Join(t.TempDir(), "client.mjs")
	data, err := os.ReadFile(filepath.Join(jsDir, "client.mjs"))
	require.NoError(t, err)
	// node looks for @a2a-js/sdk from the script's folder up: a link to the
	// installed node_modules beside the script is where it finds it.
	require.NoError(t, os.WriteFile(script, data, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(filepath.Dir(script), "node_modules")))
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, script, url, "sort 5 3 9 1", "js-s3cret").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("node client.mjs: %v: %s", err, exit.Stderr)
	}
	require.NoError(t, err)
	var got struct {
		ID        string   `json:"id"`
		State     string   `json:"state"`
		Artifacts []string `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "output %q", out)
	assert.Equal(t, "TASK_STATE_COMPLETED", got.State)
	assert.Equal(t, []string{"1 3 5 9"}, got.Artifacts)
	assert.NotEmpty(t, got.ID)

	out, err = exec.CommandContext(ctx, node, script, url, "sort 5 3 9 1").CombinedOutput()
	require.Error(t, err, "without the token: %s", out)
}
