package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewBuildVersion(t *testing.T) {
	t.Parallel()
	platform := " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	vcs := []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1af7f8905309b7bf8fd2dd05b06ea4fce4ad2275"},
		{Key: "vcs.time", Value: "2026-11-27T14:43:21Z"}, {Key: "vcs.modified", Value: "true"}}
	mod := func(version string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/switchboard-dev/switchboard", Version: version}, Settings: settings}
	}
	tests := []struct {
		name, set string
		bi        *debug.BuildInfo
		want      string
	}{
		{"no build info", "dev", nil, "switchboard dev" + platform},
		{"a local build without VCS", "dev", mod("(devel)", nil), "switchboard dev" + platform},
		{"go install of a tag", "dev", mod("v1.4.0", nil), "switchboard v1.4.0" + platform},
		{"a build in a clone", "dev", mod("v0.0.0-20261127144321-1af7f8905309+dirty", vcs),
			"switchboard v0.0.0-20261127144321-1af7f8905309+dirty" + platform + " (revision 1af7f8905309, 2026-11-27T14:43:21Z, modified)"},
		{"-ldflags wins", "1.2.3", mod("v1.4.0", vcs[:4]),
			"switchboard 1.2.3" + platform + " (revision 1af7f8905309, 2026-11-27T14:43:21Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, newBuildVersion(tt.set, tt.bi, tt.bi != nil).String())
		})
	}
	v := newBuildVersion("dev", mod("(devel)", vcs), true)
	assert.Equal(t, buildVersion{Version: "dev", Module: "github.com/switchboard-dev/switchboard", Go: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, Revision: "1af7f8905309b7bf8fd2dd05b06ea4fce4ad2275",
		Time: "2026-11-27T14:43:21Z", Modified: true}, v)
}

func TestVersionJSON(t *testing.T) {
	code, out, errOut := runMain(t, "version", "--json")
	require.Equal(t, ExitOK, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "1.2.3", got["version"])
	assert.Equal(t, runtime.Version(), got["go"])
	assert.Equal(t, runtime.GOOS, got["os"])
	assert.Equal(t, runtime.GOARCH, got["arch"])
	for _, key := range []string{"module", "revision", "time", "modified"} {
		assert.Contains(t, got, key)
	}
}

// raceFlags is -race when the tests run with it (race_test.go).
var raceFlags []string

// TestVersionOfABuiltBinary builds switchboard from this checkout with
// VCS stamping and checks that version prints the checkout's revision,
// its commit time and whether the tree has changes. It needs a git clone
// (go build records nothing in a git worktree, whose .git is a file).
func TestVersionOfABuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds switchboard")
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	rootOut, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	root := strings.TrimSpace(string(rootOut))
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		t.Skipf("%s is not a git clone (a worktree, or no .git): go build records no revision there", root)
	}
	git := func(args ...string) string {
		out, err := exec.Command(gitBin, append([]string{"-C", root}, args...)...).Output()
		require.NoError(t, err, "git %v", args)
		return strings.TrimSpace(string(out))
	}
	rev := git("rev-parse", "HEAD")

	bin := filepath.Join(t.TempDir(), "switchboard")
	before := git("status", "--porcelain")
	build := exec.Command("go", append(append([]string{"build", "-buildvcs=true"}, raceFlags...), "-o", bin, "./cmd/switchboard")...)
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	after := git("status", "--porcelain")

	out, err = exec.Command(bin, "version", "--json").Output()
	require.NoError(t, err)
	var got buildVersion
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, rev, got.Revision)
	if before == after { // else other tests wrote in the tree while it was built
		assert.Equal(t, after != "", got.Modified)
	}
	assert.Equal(t, "github.com/switchboard-dev/switchboard", got.Module)
	assert.NotEmpty(t, got.Time)
	assert.NotEqual(t, "dev", got.Version, "the module's version, as go build recorded it")
	out, err = exec.Command(bin, "version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "(revision "+rev[:12]+", "+got.Time)
}
