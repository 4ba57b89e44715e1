package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nanobotConfig copies config/testdata/<name> into the sandbox's home and
// returns its path.
func (s *sandbox) nanobotConfig(name string) string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", name))
	require.NoError(s.t, err)
	return s.writeConfig(name, string(data))
}

// TestNanobotConfigsMailboxCommands: real nanobot configs (several
// providers, nanobot's channels, tools, gateway) serve the mailbox
// commands, whatever their provider ("auto", openrouter with a fake key).
func TestNanobotConfigsMailboxCommands(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"nanobot-openrouter.json", "nanobot-auto-snake.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			conf := s.nanobotConfig(name)
			s.environ = []string{"NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOW=20"}
			recv := s.start("--config", conf, "recv", "nano", "--count", "1", "--json")
			recv.awaitStderr("listening as nano")
			id := s.sendID("--config", conf, "--from", "alice", "--to", "nano", "--text", "hello")
			var line map[string]any
			require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "the message")), &line))
			assert.Equal(t, 0, recv.wait(), "recv stderr:\n%s", recv.stderrSoFar())
			assert.Equal(t, id, line["mailbox"].(map[string]any)["message_id"])
			assert.Equal(t, 1, strings.Count(recv.stderrSoFar(), "\n"), "no word on stderr about ignored keys: %q", recv.stderrSoFar())
			assert.Contains(t, s.ok("--config", conf, "agents"), "nano")
			s.ok("--config", conf, "inbox", "nano")
		})
	}
}

// TestNanobotConfigRun: `run` with a nanobot config, the scripted provider
// set through the environment: discord is skipped with a warning, the
// nanobot keys are listed in one INFO line, the mailbox answers.
func TestNanobotConfigRun(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.nanobotConfig("nanobot-openrouter.json")
	s.environ = []string{"NANOBOT_AGENTS__DEFAULTS__PROVIDER=scripted", "NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOW=20",
		"NANOBOT_CHANNELS__TELEGRAM__ENABLED=false", "NANOBOT_CHANNELS__DISCORD__ENABLED=true"} // telegram would call Telegram
	host := s.start("--config", conf, "run")
	host.awaitStderr("host running")
	logs := host.stderrSoFar()
	assert.Contains(t, logs, `level=WARN msg="skipped enabled channels of types nanobot has and this build does not" channels=[discord]`)
	assert.Regexp(t, `level=INFO msg="config keys switchboard does not use, ignored \(switchboard config check says why\)" keys="\[agents.defaults.memoryWindow .*channels.email .*tools.restrictToWorkspace.*\]"`, logs)
	assert.NotContains(t, logs, "providers.openrouter.extraHeaders", "extraHeaders is used")

	recv := s.start("recv", "alice", "--count", "1", "--json")
	recv.awaitStderr("listening as alice")
	s.sendID("--from", "alice", "--to", "nano", "--text", "count words in a b c")
	assert.Equal(t, "3", awaitReply(t, recv)["content"])
	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
}

func TestNanobotConfigRunRefuses(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	only := s.writeConfig("discord.json", `{"channels": {"discord": {"enabled": true, "token": "x"}, "mailbox": {"enabled": false}}}`)
	r := s.run("--config", only, "run")
	assert.Equal(t, 1, r.code)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	require.Len(t, lines, 2, "the skip's warning, then the error")
	assert.Contains(t, lines[0], `level=WARN msg="skipped enabled channels`)
	assert.Equal(t, "switchboard: no channel is enabled in "+only+" but channels.discord, of channel types not in this build: "+
		"set channels.mailbox.enabled (or channels.feishu.enabled) to true", lines[1])

	bad := s.writeConfig("bad.json", `{"agents": {"defaults": {"maxTokens": 0}},
		"channels": {"mailbox": {"enabled": true, "agentId": "nano"}}}`)
	s.ok("--config", bad, "agents") // no use for agents.defaults
	assertOneLineError(t, s.run("--config", bad, "run"), 1, "agents.defaults.maxTokens: want a whole number of 1 or more, got 0")

	auto := s.nanobotConfig("nanobot-auto-snake.json")            // auto: deepseek/deepseek-chat, and deepseek's key...
	s.environ = []string{"NANOBOT_PROVIDERS__DEEPSEEK__API_KEY="} // ...taken away
	assertOneLineError(t, s.run("--config", auto, "run"), 1,
		`agents.defaults.model: "deepseek/deepseek-chat" needs provider deepseek, which is not configured: set providers.deepseek.apiKey (or DEEPSEEK_API_KEY)`)
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.nanobotConfig("nanobot-openrouter.json")
	s.environ = []string{"NANOBOT_AGENTS__DEFAULTS__PROVIDER=scripted", "NANOBOT_AGENTS__DEFAULTS__MEMORY_WINDOW=20"}
	out := s.ok("--config", conf, "config", "check")
	assert.Regexp(t, `(?m)^file +~/nanobot-openrouter.json$`, out)
	assert.Regexp(t, `(?m)^used +agents.defaults.model$`, out)
	assert.Regexp(t, `(?m)^ignored +agents.defaults.memoryWindow +nanobot key switchboard does not use$`, out)
	assert.Regexp(t, `(?m)^ignored +channels.discord +channel type not in this build$`, out)
	assert.Regexp(t, `(?m)^used +channels.telegram.token$`, out)
	assert.Regexp(t, `(?m)^used +channels.feishu.reactEmoji$`, out)
	assert.Regexp(t, `(?m)^used +channels.mailbox.agentId$`, out)

	s.environ = nil
	typos := s.nanobotConfig("nanobot-typos.json")
	r := s.run("--config", typos, "config", "check", "--json")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "switchboard: config check: 7 errors in ~/nanobot-typos.json\n", r.stderr)
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var l map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		assertSnakeCase(t, l, "config check")
		if l["status"] == "error" {
			errs = append(errs, l["path"].(string)+": "+l["error"].(string))
		}
	}
	slices.Sort(errs)
	assert.Equal(t, []string{
		`agents.defaults.memoryWindw: unknown key (did you mean "memoryWindow"?)`,
		`channels.feishu.appSecrett: unknown key (did you mean "appSecret"?)`,
		`channels.mailbox.agentID: unknown key (did you mean "agentId"?)`,
		`channels.sendProgres: unknown key (did you mean "sendProgress"?)`,
		`gateway.prot: unknown key (did you mean "port"?)`,
		`providers.openrouter.extraHeader: unknown key (did you mean "extraHeaders"?)`,
		`tools.restrictToWorkspce: unknown key (did you mean "restrictToWorkspace"?)`,
	}, errs)

	assertOneLineError(t, s.run("--config", filepath.Join(s.home, "nope.json"), "config", "check"), 2, "no such file")
	assertOneLineError(t, s.run("config"), 2, "missing subcommand: check")
}
