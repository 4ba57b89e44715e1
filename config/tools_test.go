package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
)

func TestMCPServers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		tools map[string]any
		want  map[string]config.MCPServerConfig
		err   string
	}{
		{name: "none", tools: nil, want: map[string]config.MCPServerConfig{}},
		{name: "stdio and http", tools: map[string]any{"mcpServers": map[string]any{
			"files": map[string]any{"command": "npx", "args": []any{"-y", "srv"}, "env": map[string]any{"K": "v"}},
			"web":   map[string]any{"url": "http://x/mcp", "headers": map[string]any{"Authorization": "t"}, "toolTimeout": 5},
		}}, want: map[string]config.MCPServerConfig{
			"files": {Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"K": "v"}},
			"web":   {URL: "http://x/mcp", Headers: map[string]string{"Authorization": "t"}, ToolTimeout: 5},
		}},
		{name: "neither", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{}}}, err: "tools.mcpServers.x.url"},
		{name: "unknown key", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "a", "cmd": "b"}}}, err: "tools.mcpServers.x.cmd"},
		{name: "sse", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{"type": "sse", "url": "u"}}}, err: `"sse" is not supported`},
		{name: "connect limit", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "npx", "connectTimeout": 120}}},
			want: map[string]config.MCPServerConfig{"x": {Command: "npx", ConnectTimeout: 120}}},
		{name: "connect limit negative", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "npx", "connectTimeout": -1}}},
			err: "tools.mcpServers.x.connectTimeout: want a number of seconds from 0"},
		{name: "connect limit past a day", tools: map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "npx", "connectTimeout": 1e300}}},
			err: "tools.mcpServers.x.connectTimeout"},
		{name: "not an object", tools: map[string]any{"mcpServers": []any{}}, err: "tools.mcpServers: want an object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := config.Default()
			c.Tools = tt.tools
			got, err := c.MCPServers()
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	s := config.MCPServerConfig{Command: "a"}
	assert.Equal(t, config.MCPStdio, s.Transport())
	assert.Equal(t, config.DefaultMCPToolTimeout, s.Timeout())
	assert.Equal(t, 1500*time.Millisecond, config.MCPServerConfig{URL: "u", ToolTimeout: 1.5}.Timeout())
	assert.Equal(t, config.MCPStreamableHTTP, config.MCPServerConfig{URL: "u"}.Transport())
	assert.Equal(t, 20*time.Second, s.ConnectLimit(20*time.Second), "the host's default")
	assert.Equal(t, 2*time.Minute, config.MCPServerConfig{Command: "a", ConnectTimeout: 120}.ConnectLimit(20*time.Second))
}

func TestMCPServersReportedUsed(t *testing.T) {
	t.Parallel()
	path := writeTools(t, `{"tools": {"mcpServers": {"files": {"command": "fs-server"}}, "restrictToWorkspace": true}}`)
	c, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	status := map[string]config.Status{}
	for _, e := range c.Report.Entries() {
		status[e.Path] = e.Status
	}
	assert.Equal(t, config.Used, status["tools.mcpServers"])
	assert.Equal(t, config.Ignored, status["tools.restrictToWorkspace"])
}

// writeTools writes a config file for a test and returns its path.
func writeTools(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}
