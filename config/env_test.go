package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noFile returns a path where there is no file.
func noFile(t *testing.T) string {
	return filepath.Join(t.TempDir(), "none.json")
}

func TestLoadEnvWinsOverFile(t *testing.T) {
	tests := []struct {
		name string
		file string
	}{
		{"no file", ""},
		{"camel in file", `{"channels": {"mailbox": {"agentId": "file", "enabled": false}}, "agents": {"defaults": {"maxTokens": 1}}}`},
		{"snake in file", `{"channels": {"mailbox": {"agent_id": "file", "enabled": false}}, "agents": {"defaults": {"max_tokens": 1}}}`},
	}
	env := []string{
		"NANOBOT_CHANNELS__MAILBOX__AGENT_ID=coder",
		"NANOBOT_CHANNELS__MAILBOX__ENABLED=true",
		"NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS=5",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := noFile(t)
			if tt.file != "" {
				path = writeConfig(t, tt.file)
			}
			c, err := Load(LoadOptions{Path: path, Environ: env})
			require.NoError(t, err)
			assert.Equal(t, 5, c.Agents.Defaults.MaxTokens)
			s, ok := c.Section("mailbox")
			require.True(t, ok)
			assert.Equal(t, map[string]any{"agentId": "coder", "enabled": "true"}, s.Raw)
			assert.True(t, s.Enabled())
		})
	}
}

func TestLoadEnvReplacesFileLists(t *testing.T) {
	path := writeConfig(t, `{"channels": {"mailbox": {"allowFrom": ["x", "y", "z"]}}}`)
	c, err := Load(LoadOptions{Path: path, Environ: []string{"NANOBOT_CHANNELS__MAILBOX__ALLOW_FROM=a"}})
	require.NoError(t, err)
	s, _ := c.Section("mailbox")
	got := defaultSample()
	require.NoError(t, s.Decode(&got))
	assert.Equal(t, []string{"a"}, got.AllowFrom)
}

func TestLoadTypedEnvValues(t *testing.T) {
	env := []string{
		"NANOBOT_AGENTS__DEFAULTS__TEMPERATURE=0.7",
		"NANOBOT_AGENTS__DEFAULTS__MAX_CONCURRENT_SESSIONS=3",
		"NANOBOT_PROVIDERS__OPENAI__TIMEOUT=12.5",
		"NANOBOT_PROVIDERS__OPENAI__API_KEY=secret",
		"NANOBOT_CHANNELS__MAILBOX__ENABLED=true",
		"NANOBOT_CHANNELS__MAILBOX__MAX_CONCURRENT_TASKS=5",
		"NANOBOT_CHANNELS__MAILBOX__POLL_INTERVAL=0.25",
		"NANOBOT_CHANNELS__MAILBOX__HEARTBEAT_INTERVAL=2",
		"NANOBOT_CHANNELS__MAILBOX__ALLOW_FROM=a,b",
		`NANOBOT_CHANNELS__MAILBOX__CAPABILITIES=["code","test"]`,
		"NANOBOT_CHANNELS__MAILBOX__AGENT_ID=x=y", // only the first "=" splits
	}
	c, err := Load(LoadOptions{Path: noFile(t), Environ: env})
	require.NoError(t, err)
	assert.Equal(t, 0.7, c.Agents.Defaults.Temperature)
	assert.Equal(t, 3, c.Agents.Defaults.MaxConcurrentSessions)
	assert.Equal(t, ProviderConfig{APIKey: "secret", Timeout: 12.5, MaxRetries: DefaultProviderMaxRetries}, c.Providers["openai"])

	s, ok := c.Section("mailbox")
	require.True(t, ok)
	got := defaultSample()
	require.NoError(t, s.Decode(&got))
	want := defaultSample()
	want.Enabled, want.AgentID, want.MaxConcurrentTasks = true, "x=y", 5
	want.PollInterval, want.Heartbeat = 0.25, 2*time.Second
	want.AllowFrom, want.Capabilities = []string{"a", "b"}, []string{"code", "test"}
	assert.Equal(t, want, got)
}

func TestLoadIgnoredEnv(t *testing.T) {
	t.Setenv("NANOBOT_AGENTS__DEFAULTS__MODEL", "from-process")
	env := []string{
		"NANOBOT_HOME=/x",                    // a single level: not a key
		"NANOBOT_=x",                         // no level at all
		"HOME=/root",                         // not ours
		"XNANOBOT_AGENTS__DEFAULTS__MODEL=x", // the prefix must start the name
		"nanobot_agents__defaults__model=x",  // the prefix is case-sensitive
		"NANOBOT_AGENTS__DEFAULTS__MODEL",    // no "=": not a variable
	}
	for _, environ := range [][]string{nil, {}, env} {
		c, err := Load(LoadOptions{Path: noFile(t), Environ: environ})
		require.NoError(t, err)
		assert.Equal(t, Default(), bare(c), "the process environment is never read")
	}
}

func TestLoadEnvErrors(t *testing.T) {
	const badName = `not a key path: levels are separated by "__" and made of letters and digits joined by single "_"`
	tests := []struct {
		name string
		file string
		env  []string
		want []string
		is   error
	}{
		{name: "unknown key names the variable",
			env:  []string{"NANOBOT_AGENTS__DEFAULTS__MODLE=x"},
			want: []string{`NANOBOT_AGENTS__DEFAULTS__MODLE: agents.defaults.modle: unknown key (did you mean "model"?)`},
			is:   ErrUnknownKey},
		{name: "unknown section names the variable",
			env:  []string{"NANOBOT_WEBHOOK__PORT=1"},
			want: []string{`NANOBOT_WEBHOOK__PORT: webhook: unknown key`},
			is:   ErrUnknownKey},
		{name: "bad value names the variable",
			env:  []string{"NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS=lots"},
			want: []string{`NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS: agents.defaults.maxTokens: want a number, got "lots"`},
			is:   ErrInvalidValue},
		{name: "bad bool names the variable",
			env:  []string{"NANOBOT_PROVIDERS__OPENAI__MAX_RETRIES=true"},
			want: []string{`NANOBOT_PROVIDERS__OPENAI__MAX_RETRIES: providers.openai.maxRetries: want a number, got "true"`},
			is:   ErrInvalidValue},
		{name: "out of range value names the variable",
			env:  []string{"NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS=0"},
			want: []string{`NANOBOT_AGENTS__DEFAULTS__MAX_TOKENS: agents.defaults.maxTokens: want a whole number of 1 or more, got 0`},
			is:   ErrInvalidValue},
		{name: "a value where the file has a section",
			file: `{"channels": {"mailbox": {"enabled": true}}}`,
			env:  []string{"NANOBOT_CHANNELS__MAILBOX=on"},
			want: []string{`NANOBOT_CHANNELS__MAILBOX: channels.mailbox: want an object, got "on"`},
			is:   ErrInvalidValue},
		{name: "file and environment errors together",
			file: `{"agents": {"defaults": {"maxTokens": "many"}}}`,
			env:  []string{"NANOBOT_AGENTS__DEFAULTS__TEMPERATURE=hot"},
			want: []string{
				`agents.defaults.maxTokens: want a number, got "many"`,
				`NANOBOT_AGENTS__DEFAULTS__TEMPERATURE: agents.defaults.temperature: want a number, got "hot"`,
			},
			is: ErrInvalidValue},
		{name: "bad names",
			env: []string{"NANOBOT_AGENTS___DEFAULTS=x", "NANOBOT_AGENTS__DEFAULTS__MAX-TOKENS=1", "NANOBOT_AGENTS__=x"},
			want: []string{
				"NANOBOT_AGENTS__: " + badName,
				"NANOBOT_AGENTS__DEFAULTS__MAX-TOKENS: " + badName,
				"NANOBOT_AGENTS___DEFAULTS: " + badName,
			},
			is: ErrUnknownKey},
		{name: "two variables for one key",
			env:  []string{"NANOBOT_CHANNELS__MAILBOX__AGENT_ID=a", "NANOBOT_CHANNELS__MAILBOX__agent_id=b"},
			want: []string{`channels.mailbox.agentId: set by both NANOBOT_CHANNELS__MAILBOX__AGENT_ID and NANOBOT_CHANNELS__MAILBOX__agent_id`},
			is:   ErrDuplicateKey},
		{name: "keys inside values",
			env: []string{
				"NANOBOT_CHANNELS__MAILBOX_X=on", "NANOBOT_CHANNELS__MAILBOX_X__ID=a", "NANOBOT_CHANNELS__MAILBOX_X__ID__DEEP=b",
			},
			want: []string{
				`channels.mailboxX: NANOBOT_CHANNELS__MAILBOX_X sets a value here and NANOBOT_CHANNELS__MAILBOX_X__ID sets a key inside it`,
				`channels.mailboxX.id: NANOBOT_CHANNELS__MAILBOX_X__ID sets a value here and NANOBOT_CHANNELS__MAILBOX_X__ID__DEEP sets a key inside it`,
			},
			is: ErrDuplicateKey},
		{name: "a value after keys inside it",
			env: []string{"NANOBOT_CHANNELS__MAILBOX__AGENT_ID=a", "NANOBOT_CHANNELS__mailbox=on"},
			want: []string{
				`channels.mailbox: NANOBOT_CHANNELS__mailbox sets a value here and NANOBOT_CHANNELS__MAILBOX__AGENT_ID sets a key inside it`,
			},
			is: ErrDuplicateKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := noFile(t)
			if tt.file != "" {
				path = writeConfig(t, tt.file)
			}
			c, err := Load(LoadOptions{Path: path, Environ: tt.env})
			assert.Nil(t, c)
			assert.Equal(t, tt.want, errLines(err))
			assert.ErrorIs(t, err, tt.is)
		})
	}
}

func TestSectionDecodeNamesTheVariable(t *testing.T) {
	path := writeConfig(t, `{"channels": {"mailbox": {"enabled": "yes", "agentId": "file"}}}`)
	env := []string{
		"NANOBOT_CHANNELS__MAILBOX__AGNT_ID=coder",
		"NANOBOT_CHANNELS__MAILBOX__MAX_CONCURRENT_TASKS=three",
		"NANOBOT_CHANNELS__MAILBOX__ALLOW_FROM=[1]",
		"NANOBOT_CHANNELS__MAILBOX__PEERS=[{\"idd\": \"p\"}]",
	}
	c, err := Load(LoadOptions{Path: path, Environ: env})
	require.NoError(t, err, "channel sections are checked when the channel decodes them")
	s, ok := c.Section("mailbox")
	require.True(t, ok)
	got := defaultSample()
	err = s.Decode(&got)
	assert.ErrorIs(t, err, ErrUnknownKey)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, []string{
		`NANOBOT_CHANNELS__MAILBOX__AGNT_ID: channels.mailbox.agntId: unknown key (did you mean "agentId"?)`,
		`NANOBOT_CHANNELS__MAILBOX__ALLOW_FROM: channels.mailbox.allowFrom[0]: want a string, got 1`,
		`channels.mailbox.enabled: want true or false, got "yes"`,
		`NANOBOT_CHANNELS__MAILBOX__MAX_CONCURRENT_TASKS: channels.mailbox.maxConcurrentTasks: want a number, got "three"`,
		`NANOBOT_CHANNELS__MAILBOX__PEERS: channels.mailbox.peers[0].idd: unknown key (did you mean "id"?)`,
	}, errLines(err))
}

func TestEnvOnlySectionNamesTheVariable(t *testing.T) {
	c, err := Load(LoadOptions{Path: noFile(t), Environ: []string{"NANOBOT_CHANNELS__MAILBOX__RETRY__ATEMPTS=2"}})
	require.NoError(t, err)
	s, _ := c.Section("mailbox")
	got := defaultSample()
	assert.EqualError(t, s.Decode(&got),
		`NANOBOT_CHANNELS__MAILBOX__RETRY__ATEMPTS: channels.mailbox.retry.atempts: unknown key (did you mean "attempts"?)`)

	// An unknown section that only the environment gave names a variable inside it.
	got = defaultSample()
	raw := map[string]any{"nested": map[string]any{"a": "1", "b": "2"}}
	err = decode(raw, "x", &got, map[string]string{"x.nested.b": "NANOBOT_X__NESTED__B", "x.nested.a": "NANOBOT_X__NESTED__A"}, nil)
	assert.EqualError(t, err, `NANOBOT_X__NESTED__A: x.nested: unknown key`)
}
