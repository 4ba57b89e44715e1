package cli

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runMain runs Main in process with a missing HOME config.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + t.TempDir()}, Version: "1.2.3"}
	t.Setenv("HOME", t.TempDir())
	code = Main(context.Background(), args, env)
	return code, out.String(), errOut.String()
}

func TestMainExitCodes(t *testing.T) {
	code, out, errOut := runMain(t, "version")
	assert.Equal(t, ExitOK, code)
	assert.Equal(t, "switchboard 1.2.3 "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n", out)
	assert.Empty(t, errOut)

	code, out, _ = runMain(t)
	assert.Equal(t, ExitOK, code, "no command: help")
	assert.Contains(t, out, "Available Commands:")

	code, out, errOut = runMain(t, "inbox", "a", "--json", "--nope")
	assert.Equal(t, ExitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, "switchboard: unknown flag: --nope; run 'switchboard help inbox'\n", errOut)

	root := t.TempDir()
	code, _, errOut = runMain(t, "--root", root, "thread", "x")
	assert.Equal(t, ExitFailure, code)
	assert.Equal(t, "switchboard: message x not found under "+root+"\n", errOut)
}

func TestUsageError(t *testing.T) {
	t.Parallel()
	base := errors.New("bad")
	err := asUsage(base)
	assert.True(t, isUsage(err))
	assert.ErrorIs(t, err, base)
	assert.True(t, isUsage(usagef("x %d", 1)))
	assert.False(t, isUsage(base))
	assert.NoError(t, asUsage(nil))
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a b c", oneLine("a\n\n\tb  c\n"))
}

func TestUnknownName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "sned", unknownName(`unknown command "sned" for "switchboard"`))
	assert.Equal(t, "", unknownName(`unknown command sned`))
}

func TestStopped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	assert.False(t, stopped(ctx, context.Canceled), "ctx still running")
	cancel()
	assert.True(t, stopped(ctx, context.Canceled))
	assert.True(t, stopped(ctx, errors.Join(errors.New("watch"), context.Canceled)))
	assert.False(t, stopped(ctx, errors.New("disk full")))
}

// TestRunHelpNamesTheProviders: help run says the provider is "auto" by
// default, with nanobot's catalog, not "scripted" (the default) or
// "openai" alone.
func TestRunHelpNamesTheProviders(t *testing.T) {
	code, out, _ := runMain(t, "help", "run")
	assert.Equal(t, ExitOK, code)
	flat := oneLine(out)
	assert.Contains(t, flat, `"auto", the default: chosen as nanobot does`)
	assert.Contains(t, flat, `"anthropic", "openai", "deepseek"`)
	assert.NotContains(t, flat, `"scripted" (the default`)
}

// TestStopTimeoutMustBeFinite: --stop-timeout refuses NaN, infinities,
// zero and negative numbers, naming the flag.
func TestStopTimeoutMustBeFinite(t *testing.T) {
	for v, shown := range map[string]string{"NaN": "NaN", "nan": "NaN", "Inf": "+Inf", "-Inf": "-Inf", "0": "0", "-1": "-1", "3601": "3601"} {
		code, _, errOut := runMain(t, "run", "--stop-timeout", v)
		assert.Equal(t, ExitUsage, code, v)
		assert.Contains(t, errOut, "switchboard: --stop-timeout "+shown+": want a number of seconds above 0, at most 3600", v)
	}
}
