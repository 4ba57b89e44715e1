package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// chromiumPath finds a Chromium to drive: $SWITCHBOARD_CHROMIUM, else
// chromium (Debian's package) or a Chrome on PATH. Without one the browser
// tests fail in CI (CI=true; .ci/run installs chromium) and are skipped
// elsewhere.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SWITCHBOARD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the browser tests need Chromium: apt-get install -y chromium (or set SWITCHBOARD_CHROMIUM)")
	}
	t.Skip("skipping the browser tests: no chromium on PATH (apt-get install -y chromium, or set SWITCHBOARD_CHROMIUM); they run in CI")
	return ""
}

// browser starts a headless Chromium for the test and returns a tab's
// context, which ends after testkit.WaitLimit at most per step (see run).
func browser(t *testing.T) context.Context {
	t.Helper()
	// A profile folder of its own, removed at the end as far as it can
	// be: Chromium's helpers may still write to it as it exits, which
	// would fail t.TempDir's check.
	profile, err := os.MkdirTemp("", "switchboard-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 860),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	require.NoError(t, chromedp.Run(ctx), "start chromium")
	return ctx
}

// run runs browser actions, each step bounded by testkit.WaitLimit.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	step, cancel := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancel()
	require.NoError(t, chromedp.Run(step, actions...), what)
}

// screenshot saves the page as NAME.png in $SWITCHBOARD_SCREENSHOTS (a
// folder, relative to the module's root) when that is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SWITCHBOARD_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var png []byte
	run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// startConsole starts `console --listen 127.0.0.1:0 --read-open` in s
// and returns its address with the token and without it (read-only).
func startConsole(t *testing.T, s *sandbox) (withToken, readOnly string) {
	t.Helper()
	p := s.start("console", "--listen", "127.0.0.1:0", "--read-open")
	line := p.next(p.stdout, "the console's address")
	url, ok := strings.CutPrefix(line, "console ")
	require.True(t, ok, "first line: %q", line)
	base, _, _ := strings.Cut(url, "#")
	return url, base
}
