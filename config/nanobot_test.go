package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entries returns the report's entries as path → "status[: reason]".
func entries(r *Report) map[string]string {
	out := map[string]string{}
	for _, e := range r.Entries() {
		s := e.Status.String()
		if e.Reason != "" {
			s += ": " + e.Reason
		}
		if e.Err != nil {
			s += ": " + e.Err.Msg
		}
		out[e.Path] = s
	}
	return out
}

func TestLoadNanobotConfigs(t *testing.T) {
	t.Parallel()
	const ignored = "ignored: " + ReasonNanobotKey
	tests := []struct {
		file     string
		provider string
		want     map[string]string
	}{
		{"nanobot-openrouter.json", "openrouter", map[string]string{
			"agents.defaults.model":             "used",
			"agents.defaults.memoryWindow":      ignored,
			"agents.defaults.reasoningEffort":   ignored,
			"channels.sendProgress":             ignored,
			"providers.openrouter.apiKey":       "used",
			"providers.openrouter.extraHeaders": "used",
			"providers.aihubmix.extraHeaders":   "used",
			"gateway":                           ignored,
			"tools.mcpServers":                  "used",
			"tools.restrictToWorkspace":         ignored,
		}},
		{"nanobot-auto-snake.json", "auto", map[string]string{
			"agents.defaults.maxTokens":       "used",
			"agents.defaults.memoryWindow":    ignored,
			"channels.sendProgress":           ignored,
			"providers.deepseek.extraHeaders": "used",
			"audio":                           ignored,
			"tools.mcpServers":                "used",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			c, err := Load(LoadOptions{Path: filepath.Join("testdata", tt.file), Environ: []string{}})
			require.NoError(t, err)
			assert.Equal(t, tt.provider, c.Agents.Defaults.Provider, "the provider is not checked at load time")
			got := entries(c.Report)
			for path, want := range tt.want {
				assert.Equal(t, want, got[path], path)
			}
			assert.NoError(t, c.Report.Err())
			_, ok := c.Section("mailbox")
			assert.True(t, ok)
		})
	}
}

func TestLoadNanobotEnvOverrides(t *testing.T) {
	t.Parallel()
	c, err := Load(LoadOptions{Path: filepath.Join("testdata", "nanobot-openrouter.json"), Environ: []string{
		"NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOW=20",
		"NANOBOT_AGENTS__DEFAULTS__PROVIDER=scripted",
		"NANOBOT_GATEWAY__PORT=18791",
		"NANOBOT_TOOLS__RESTRICT_TO_WORKSPACE=true",
		"NANOBOT_PROVIDERS__OPENROUTER__EXTRA_HEADERS__X_TITLE=other",
	}})
	require.NoError(t, err)
	assert.Equal(t, "scripted", c.Agents.Defaults.Provider)
	assert.Equal(t, "ignored: "+ReasonNanobotKey, entries(c.Report)["agents.defaults.memoryWindow"])

	_, err = Load(LoadOptions{Environ: []string{"NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOWS=20"}, Path: noFile(t)})
	assert.EqualError(t, err, `NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOWS: agents.defaults.memoryWindows: unknown key (did you mean "memoryWindow"?)`)
}

func TestLoadNanobotTypos(t *testing.T) {
	t.Parallel()
	_, err := Load(LoadOptions{Path: filepath.Join("testdata", "nanobot-typos.json")})
	assert.Equal(t, []string{
		`agents.defaults.memoryWindw: unknown key (did you mean "memoryWindow"?)`,
		`channels.sendProgres: unknown key (did you mean "sendProgress"?)`,
		`gateway.prot: unknown key (did you mean "port"?)`,
		`providers.openrouter.extraHeader: unknown key (did you mean "extraHeaders"?)`,
		`tools.restrictToWorkspce: unknown key (did you mean "restrictToWorkspace"?)`,
	}, errLines(err))
}

func TestLoadLenient(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `{"agents": {"defaults": {"maxTokens": 0, "modle": "x"}}, "providers": {"a": {"timeout": -1}},
		"gateway": {"prot": 1}}`)
	_, err := Load(LoadOptions{Path: path, Lenient: []string{"agents", "providers"}})
	assert.EqualError(t, err, `gateway.prot: unknown key (did you mean "port"?)`, "only the lenient sections are spared")

	path = writeConfig(t, `{"agents": {"defaults": {"maxTokens": 0, "modle": "x"}}, "providers": {"a": {"timeout": -1}}}`)
	c, err := Load(LoadOptions{Path: path, Lenient: []string{"agents", "providers"}})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"agents.defaults.maxTokens: want a whole number of 1 or more, got 0",
		`agents.defaults.modle: unknown key (did you mean "model"?)`,
		"providers.a.timeout: want a number of seconds from 0.01 to 86400 (1 day), or 0 for the default (60 s), got -1",
	}, errLines(c.Report.Err()))

	c, err = Load(LoadOptions{Path: path, Environ: []string{"NANOBOT_A__B_=1"}, Lenient: []string{"*"}})
	require.NoError(t, err)
	assert.Len(t, errLines(c.Report.Err()), 4, "every problem, the variable's name too")
}

func TestSectionNanobotKeys(t *testing.T) {
	t.Parallel()
	type feishu struct {
		Enabled bool   `json:"enabled"`
		AppID   string `json:"appId"`
	}
	path := writeConfig(t, `{"channels": {"feishu": {"appId": "x", "reactEmoji": "OK", "domain": "lark"},
		"mailbox": {"reactEmoji": "OK"}}}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	sec, _ := c.Section("feishu")
	var f feishu
	require.NoError(t, sec.Decode(&f), "nanobot's feishu keys are accepted")
	assert.Equal(t, "x", f.AppID)
	mb, _ := c.Section("mailbox")
	assert.EqualError(t, mb.Decode(&f), "channels.mailbox.reactEmoji: unknown key", "only where nanobot has them")

	got := entries(c.Report)
	assert.Equal(t, "used", got["channels.feishu.appId"])
	assert.Equal(t, "ignored: "+ReasonNanobotKey, got["channels.feishu.reactEmoji"])
	assert.Equal(t, "ignored: "+ReasonNanobotKey, got["channels.feishu.domain"])
	assert.Equal(t, "error: unknown key", got["channels.mailbox.reactEmoji"])

	tg := Section{Path: "channels.telegram", report: c.Report}
	tg.Ignore(ReasonChannelType)
	assert.Equal(t, "ignored: "+ReasonChannelType, entries(c.Report)["channels.telegram"])
}

func TestNanobotChannel(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"telegram": true, "feishu": true, "slack": true, "weixin": true,
		"mailbox": false, "sendProgress": false, "send_progress": false, "nope": false} {
		assert.Equal(t, want, NanobotChannel(name), name)
	}
	assert.Contains(t, NanobotChannels(), "telegram")
	assert.NotContains(t, NanobotChannels(), "sendProgress")
}

func TestReportNil(t *testing.T) {
	t.Parallel()
	var r *Report
	assert.Empty(t, r.Entries())
	assert.NoError(t, r.Err())
	r.Invalid("x", assert.AnError) // records nothing, does not panic
	assert.Equal(t, "used", Used.String())
	assert.Equal(t, "error", Invalid.String())
	assert.Equal(t, "unknown", Status(0).String())
}

// TestNanobotDocSaysWhichOfNanobotsKeysAreUsed: docs/nanobot.md's list of
// what is ignored says of each nanobot key switchboard uses that it is
// used (tools.mcpServers was listed as ignored).
func TestNanobotDocSaysWhichOfNanobotsKeysAreUsed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "nanobot.md"))
	require.NoError(t, err)
	_, ignored, ok := strings.Cut(string(doc), "## What is ignored")
	require.True(t, ok, "docs/nanobot.md has a section What is ignored")
	ignored, _, _ = strings.Cut(ignored, "\n## ")
	for key := range usedNanobotKeys {
		assert.Contains(t, ignored, "`"+key+"` is used", "docs/nanobot.md, What is ignored")
	}
}
