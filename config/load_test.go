package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name string
		path string
	}{
		{"default path", ""},
		{"given path", filepath.Join(t.TempDir(), "nope.json")},
		{"home path", "~/nope/config.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Path: tt.path})
			require.NoError(t, err)
			assert.Equal(t, Default(), bare(c))
		})
	}
}

func TestLoadFile(t *testing.T) {
	path := writeConfig(t, `{
  "agents": {"defaults": {
    "workspace": "/w", "model": "gpt", "provider": "openai", "maxTokens": 100,
    "temperature": 0, "maxToolIterations": 3, "maxConcurrentSessions": 2
  }},
  "channels": {
    "mailbox": {"enabled": true, "agentId": "coder", "allowFrom": ["researcher"]},
    "feishu": {"appId": "x"}
  },
  "providers": {"openai": {"apiKey": "k", "apiBase": "http://b", "model": "m", "timeout": 30, "maxRetries": 2}}
}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, path, c.Path)
	assert.Equal(t, AgentDefaults{
		Workspace: "/w", Model: "gpt", Provider: "openai", MaxTokens: 100,
		Temperature: 0, MaxToolIterations: 3, MaxConcurrentSessions: 2,
	}, c.Agents.Defaults)
	assert.Equal(t, map[string]ProviderConfig{
		"openai": {APIKey: "k", APIBase: "http://b", Model: "m", Timeout: 30, MaxRetries: 2},
	}, c.Providers)
	assert.Equal(t, 30*time.Second, c.Providers["openai"].TimeoutDuration())

	require.Len(t, c.Channels, 2)
	mailbox, ok := c.Section("mailbox")
	require.True(t, ok)
	assert.Equal(t, "channels.mailbox", mailbox.Path)
	assert.Equal(t, map[string]any{"enabled": true, "agentId": "coder", "allowFrom": []any{"researcher"}}, mailbox.Raw)
	assert.True(t, mailbox.Enabled())
	feishu, ok := c.Section("feishu")
	require.True(t, ok)
	assert.False(t, feishu.Enabled())
}

func TestLoadFileKeepsUnsetDefaults(t *testing.T) {
	path := writeConfig(t, `{"agents": {"defaults": {"model": "gpt"}}}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	want := Default()
	want.Path = path
	want.Agents.Defaults.Model = "gpt"
	assert.Equal(t, want, bare(c))
}

func TestLoadHomePath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".nanobot"), 0o700))
	path := filepath.Join(home, ".nanobot", "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"agents": {"defaults": {"model": "m"}}}`), 0o600))

	for _, p := range []string{"", "~/.nanobot/config.json"} {
		c, err := Load(LoadOptions{Path: p})
		require.NoError(t, err)
		assert.Equal(t, path, c.Path)
		assert.Equal(t, "m", c.Agents.Defaults.Model)
	}
}

func TestLoadSnakeAndCamelKeys(t *testing.T) {
	tests := []struct {
		name string
		file string
	}{
		{"camel", `{"agents": {"defaults": {"maxTokens": 7, "maxToolIterations": 9}}, "providers": {"p": {"apiKey": "k"}}}`},
		{"snake", `{"agents": {"defaults": {"max_tokens": 7, "max_tool_iterations": 9}}, "providers": {"p": {"api_key": "k"}}}`},
		{"mixed", `{"agents": {"defaults": {"max_tokens": 7, "maxToolIterations": 9}}, "providers": {"p": {"api_key": "k"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Path: writeConfig(t, tt.file)})
			require.NoError(t, err)
			assert.Equal(t, 7, c.Agents.Defaults.MaxTokens)
			assert.Equal(t, 9, c.Agents.Defaults.MaxToolIterations)
			assert.Equal(t, "k", c.Providers["p"].APIKey)
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
		is   error
	}{
		{name: "bad number",
			file: `{"agents": {"defaults": {"maxTokens": "many"}}}`,
			want: []string{`agents.defaults.maxTokens: want a number, got "many"`}, is: ErrInvalidValue},
		{name: "non-integral int",
			file: `{"agents": {"defaults": {"maxToolIterations": 2.5}}}`,
			want: []string{`agents.defaults.maxToolIterations: want a whole number, got 2.5`}, is: ErrInvalidValue},
		{name: "section is not an object",
			file: `{"agents": {"defaults": []}}`,
			want: []string{`agents.defaults: want an object, got a list`}, is: ErrInvalidValue},
		{name: "provider is not an object",
			file: `{"providers": {"openai": "key"}}`,
			want: []string{`providers.openai: want an object, got "key"`}, is: ErrInvalidValue},
		{name: "channels is not an object",
			file: `{"channels": ["mailbox"]}`,
			want: []string{`channels: want an object, got a list`}, is: ErrInvalidValue},
		{name: "channels is null",
			file: `{"channels": null}`,
			want: []string{`channels: want an object, got null`}, is: ErrInvalidValue},
		{name: "a channel is not an object",
			file: `{"channels": {"mailbox": true, "feishu": {}, "slack": "x"}}`,
			want: []string{`channels.mailbox: want an object, got true`, `channels.slack: want an object, got "x"`},
			is:   ErrInvalidValue},
		{name: "unknown key with suggestion",
			file: `{"agents": {"defaults": {"temprature": 1}}}`,
			want: []string{`agents.defaults.temprature: unknown key (did you mean "temperature"?)`}, is: ErrUnknownKey},
		{name: "unknown top-level key",
			file: `{"webhook": {"port": 1}}`,
			want: []string{`webhook: unknown key`}, is: ErrUnknownKey},
		{name: "snake and camel twice",
			file: `{"agents": {"defaults": {"max_tokens": 1, "maxTokens": 2}}}`,
			want: []string{`agents.defaults.maxTokens: set twice, as "maxTokens" and "max_tokens"`}, is: ErrDuplicateKey},
		{name: "out of range",
			file: `{"agents": {"defaults": {"maxTokens": 0}}}`,
			want: []string{`agents.defaults.maxTokens: want a whole number of 1 or more, got 0`}, is: ErrInvalidValue},
		{name: "all at once, sorted by path",
			file: `{
  "providers": {"openai": {"timeout": "soon"}},
  "agents": {"defaults": {"maxTokens": "many", "modle": "m"}},
  "channels": {"mailbox": 1},
  "extra": 1
}`,
			want: []string{
				`agents.defaults.maxTokens: want a number, got "many"`,
				`agents.defaults.modle: unknown key (did you mean "model"?)`,
				`channels.mailbox: want an object, got 1`,
				`extra: unknown key`,
				`providers.openai.timeout: want a number, got "soon"`,
			}, is: ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Path: writeConfig(t, tt.file)})
			assert.Nil(t, c)
			assert.Equal(t, tt.want, errLines(err))
			assert.ErrorIs(t, err, tt.is)
		})
	}
}

func TestLoadMalformedFile(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // after "<path>:"
	}{
		{"bad value", "{\n  \"a\": 1,\n  \"b\": x\n}", "3:8: invalid character 'x' looking for beginning of value"},
		{"bad value on line 1", `{"a": x}`, "1:7: invalid character 'x' looking for beginning of value"},
		{"trailing comma", "{\n\t\"a\": 1,\n}", "3:1: invalid character '}' looking for beginning of object key string"},
		{"missing colon", `{"a" 1}`, "1:6: invalid character '1' after object key"},
		{"after the end", "{}\n}", "2:1: invalid character '}' after top-level value"},
		{"truncated", "{\"a\": 1", "1:8: unexpected end of JSON input"},
		{"truncated after a newline", "{\"a\": 1,\n", "2:1: unexpected end of JSON input"},
		{"empty", "", "1:1: unexpected end of JSON input"},
		{"number out of range", "{\n  \"a\": {\"rate\": 1e309}\n}", "2:17: json: cannot unmarshal number 1e309 into Go value of type float64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.file)
			c, err := Load(LoadOptions{Path: path})
			assert.Nil(t, c)
			assert.EqualError(t, err, path+":"+tt.want)
		})
	}
}

func TestLoadFileNotAnObject(t *testing.T) {
	tests := []struct{ file, want string }{
		{`[1, 2]`, "want a JSON object at the top level, got a list"},
		{`"config"`, `want a JSON object at the top level, got "config"`},
		{`null`, "want a JSON object at the top level, got null"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := writeConfig(t, tt.file)
			_, err := Load(LoadOptions{Path: path})
			assert.EqualError(t, err, path+": "+tt.want)
		})
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(LoadOptions{Path: dir})
	assert.EqualError(t, err, "config: "+dir+" is a directory, not a regular file; name a JSON file (--config FILE)")
}

func TestLoadOtherUserPath(t *testing.T) {
	_, err := Load(LoadOptions{Path: "~bob/config.json"})
	assert.EqualError(t, err, `config: expand "~bob/config.json": only "~/" is supported, not "~user/"`)
}

func TestLoadAcceptsNanobotGatewayAndTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	data := `{"gateway":{"host":"0.0.0.0","port":18790},"tools":{"web":{"search":{"apiKey":""}}},` +
		`"channels":{"mailbox":{"enabled":true,"agentId":"coder"}}}`
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	cfg, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, "0.0.0.0", cfg.Gateway["host"])
	assert.Contains(t, cfg.Tools, "web")
}

func TestLoadProviderMaxRetriesDefault(t *testing.T) {
	path := writeConfig(t, `{"providers": {"a": {"apiKey": "k"}, "b": {"maxRetries": 0}}}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, DefaultProviderMaxRetries, c.Providers["a"].MaxRetries, "absent: the default")
	assert.Equal(t, 0, c.Providers["b"].MaxRetries, "an explicit 0 is kept: never retry")
}
