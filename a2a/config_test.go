package a2a_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// load reads a config file of content, with the environment environ.
func load(t *testing.T, content string, environ ...string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path, Environ: environ, Lenient: []string{"*"}})
	require.NoError(t, err)
	return cfg
}

// The section decodes over the defaults, each connected agent over its
// own, and the environment overrides a key (the token).
func TestDecodeConfig(t *testing.T) {
	t.Parallel()
	cfg := load(t, `{"channels": {"a2a": {"enabled": true, "listen": "127.0.0.1:8790", "serve": ["coder", "*"],
		"connect": {"echo": {"url": "http://127.0.0.1:9001", "capabilities": ["echoing"]}}}}}`,
		"NANOBOT_CHANNELS__A2A__TOKEN=s3cret")
	sec, ok := cfg.Section("a2a")
	require.True(t, ok)
	got, err := a2agw.DecodeConfig(sec)
	require.NoError(t, err)
	assert.Equal(t, "a2a", got.AgentID)
	assert.Equal(t, 3600.0, got.TaskTimeout)
	assert.Equal(t, "s3cret", got.Token.Reveal())
	assert.Equal(t, "[redacted]", got.Token.String())
	echo := got.Connect["echo"]
	assert.Equal(t, "http://127.0.0.1:9001", echo.URL)
	assert.Equal(t, 300.0, echo.Refresh)
	assert.Equal(t, []string{"*"}, echo.AllowFrom)
	assert.Equal(t, 3, echo.MaxConcurrentTasks)

	ok, err = channels.DefaultRegistry().Check("a2a", sec)
	assert.True(t, ok, "the type has a checker")
	assert.NoError(t, err)
}

// Every bad value is refused with its key path.
func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, section, want string
	}{
		{"unknown key", `{"enabled": true, "lsten": "x"}`, "channels.a2a.lsten"},
		{"nothing to do", `{"enabled": true}`, "channels.a2a: serve agents (listen, serve) or connect some"},
		{"serve without listen", `{"serve": ["coder"]}`, "channels.a2a.listen: required to serve"},
		{"listen without serve", `{"listen": "127.0.0.1:1"}`, "channels.a2a.serve: name the mailbox agents"},
		{"token off loopback", `{"listen": "0.0.0.0:8790", "serve": ["coder"]}`,
			"channels.a2a.token: required when channels.a2a.listen (0.0.0.0:8790) is not a loopback address"},
		{"bad listen", `{"listen": "nowhere", "serve": ["coder"]}`, "channels.a2a.listen: want host:port"},
		{"bad agent", `{"listen": "127.0.0.1:1", "serve": ["../x"]}`, "channels.a2a.serve[0]"},
		{"serving itself", `{"listen": "127.0.0.1:1", "serve": ["a2a"]}`, "channels.a2a.serve[0]: \"a2a\" is the gateway's own id"},
		{"default not served", `{"listen": "127.0.0.1:1", "serve": ["coder"], "default": "x"}`, "channels.a2a.default"},
		{"bad timeout", `{"taskTimeout": 0, "connect": {"e": {"url": "http://h"}}}`, "channels.a2a.taskTimeout"},
		{"bad public url", `{"publicUrl": "ftp://x", "connect": {"e": {"url": "http://h"}}}`, "channels.a2a.publicUrl"},
		{"no url", `{"connect": {"echo": {}}}`, "channels.a2a.connect.echo.url"},
		{"unknown remote key", `{"connect": {"echo": {"url": "http://h", "tokn": "x"}}}`, "channels.a2a.connect.echo.tokn"},
		{"bad transport", `{"connect": {"echo": {"url": "http://h", "transport": "grpc"}}}`, "channels.a2a.connect.echo.transport"},
		{"bad refresh", `{"connect": {"echo": {"url": "http://h", "refresh": 0}}}`, "channels.a2a.connect.echo.refresh"},
		{"served and connected", `{"listen": "127.0.0.1:1", "serve": ["echo"], "connect": {"echo": {"url": "http://h"}}}`,
			"channels.a2a.connect.echo: \"echo\" is served as well"},
		{"connect not an object", `{"connect": ["x"]}`, "channels.a2a.connect"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := load(t, `{"channels": {"a2a": `+tt.section+`}}`)
			sec, _ := cfg.Section("a2a")
			_, err := a2agw.DecodeConfig(sec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
