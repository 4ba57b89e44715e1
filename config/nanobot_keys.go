package config

import (
	"slices"
	"strings"
	"sync"
)

// nanobotKeys are the key paths of nanobot's config.json, camelCase, from
// nanobot/config/schema.py of HKUDS/nanobot: all of it at commit 001982ef
// (March 2026, the schema with agents.defaults.memoryWindow), plus what
// schema.py of commit 3852956a (August 2026) adds to the sections it still
// defines itself. "*" stands for any one name (a provider, an MCP server,
// a header). A path with no longer path below it holds a value whose keys
// are not checked: a dict of free-form names (extraHeaders), or a tool's
// section that newer nanobot defines outside schema.py (tools.web).
//
// Only the channel types are listed for channels nanobot has and this
// package does not know the keys of; a section of such a type is skipped
// whole (see Section.Ignore). Feishu's keys are listed because the Feishu
// stub decodes channels.feishu with nanobot's keys and some of its own.
var nanobotKeys = [...]string{
	// agents.defaults
	"agents.defaults.workspace", "agents.defaults.model", "agents.defaults.provider",
	"agents.defaults.maxTokens", "agents.defaults.temperature", "agents.defaults.maxToolIterations",
	"agents.defaults.memoryWindow", "agents.defaults.reasoningEffort",
	"agents.defaults.modelPreset", "agents.defaults.contextWindowTokens", "agents.defaults.contextBlockLimit",
	"agents.defaults.fallbackModels", "agents.defaults.maxConcurrentSubagents", "agents.defaults.failOnToolError",
	"agents.defaults.maxToolResultChars", "agents.defaults.providerRetryMode", "agents.defaults.toolHintMaxLength",
	"agents.defaults.timezone", "agents.defaults.timezoneMode", "agents.defaults.botName", "agents.defaults.botIcon",
	"agents.defaults.unifiedSession", "agents.defaults.disabledSkills", "agents.defaults.sessionTtlMinutes",
	"agents.defaults.idleCompactAfterMinutes", "agents.defaults.idleCompactCheckIntervalSeconds",
	"agents.defaults.consolidationRatio", "agents.defaults.maxMessages",
	"agents.defaults.dream.enabled", "agents.defaults.dream.intervalH", "agents.defaults.dream.cron",
	"agents.defaults.dream.modelOverride", "agents.defaults.dream.model",

	// channels: the keys beside the channel sections, and the channel types
	"channels.sendProgress", "channels.sendToolHints", "channels.showReasoning", "channels.extractDocumentText",
	"channels.sendMaxRetries", "channels.transcriptionProvider", "channels.transcriptionLanguage",
	"channels.whatsapp", "channels.telegram", "channels.discord", "channels.mochat", "channels.dingtalk",
	"channels.email", "channels.slack", "channels.qq", "channels.matrix", "channels.mattermost",
	"channels.msteams", "channels.napcat", "channels.signal", "channels.websocket", "channels.wecom",
	"channels.weixin",
	"channels.feishu.enabled", "channels.feishu.appId", "channels.feishu.appSecret", "channels.feishu.encryptKey",
	"channels.feishu.verificationToken", "channels.feishu.allowFrom", "channels.feishu.reactEmoji",
	"channels.feishu.instanceId", "channels.feishu.name", "channels.feishu.identityKey", "channels.feishu.doneEmoji",
	"channels.feishu.toolHintPrefix", "channels.feishu.groupPolicy", "channels.feishu.replyToMessage",
	"channels.feishu.streaming", "channels.feishu.domain", "channels.feishu.topicIsolation",
	"channels.telegram.enabled", "channels.telegram.token", "channels.telegram.allowFrom", "channels.telegram.proxy", "channels.telegram.replyToMessage", "channels.telegram.mode", "channels.telegram.reactEmoji", "channels.telegram.groupPolicy", "channels.telegram.connectionPoolSize", "channels.telegram.poolTimeout", "channels.telegram.streaming", "channels.telegram.inlineKeyboards", "channels.telegram.richMessages", "channels.telegram.streamEditInterval", "channels.telegram.webhookUrl", "channels.telegram.webhookListenHost", "channels.telegram.webhookListenPort", "channels.telegram.webhookPath", "channels.telegram.webhookSecretToken", "channels.telegram.webhookMaxConnections",
	"channels.slack.enabled", "channels.slack.mode", "channels.slack.webhookPath", "channels.slack.botToken", "channels.slack.appToken", "channels.slack.userTokenReadOnly", "channels.slack.replyInThread", "channels.slack.reactEmoji", "channels.slack.doneEmoji", "channels.slack.includeThreadContext", "channels.slack.threadContextLimit", "channels.slack.allowFrom", "channels.slack.groupPolicy", "channels.slack.groupAllowFrom", "channels.slack.groupRequireMention", "channels.slack.dm.enabled", "channels.slack.dm.policy", "channels.slack.dm.allowFrom",

	// providers (any name: nanobot accepts custom ones too)
	"providers.*.apiKey", "providers.*.apiBase", "providers.*.extraHeaders.*", "providers.*.displayName",
	"providers.*.apiType", "providers.*.extraBody", "providers.*.extraQuery.*", "providers.*.proxy",
	"providers.*.thinkingStyle", "providers.*.region", "providers.*.profile",

	// gateway, api, transcription, audio, modelPresets
	"gateway.host", "gateway.port", "gateway.restartMode",
	"gateway.heartbeat.enabled", "gateway.heartbeat.intervalS", "gateway.heartbeat.keepRecentMessages",
	"api.host", "api.port", "api.timeout", "api.apiKey",
	"transcription.enabled", "transcription.provider", "transcription.model", "transcription.language",
	"transcription.maxDurationSec", "transcription.maxUploadMb",
	"audio.tts.provider", "audio.tts.voice", "audio.tts.speed",
	"modelPresets.*.model", "modelPresets.*.provider", "modelPresets.*.maxTokens",
	"modelPresets.*.contextWindowTokens", "modelPresets.*.temperature", "modelPresets.*.reasoningEffort",

	// tools
	"tools.web", "tools.exec", "tools.file", "tools.cliApps", "tools.my", "tools.imageGeneration",
	"tools.restrictToWorkspace", "tools.maxSessionMessagesPerMinute", "tools.webuiAllowLocalServiceAccess",
	"tools.allowLocalPreviewAccess", "tools.webuiAllowRemotePackageInstall", "tools.ssrfWhitelist",
	"tools.myEnabled", "tools.mySet",
	"tools.mcpServers.*.type", "tools.mcpServers.*.auth", "tools.mcpServers.*.command", "tools.mcpServers.*.args",
	"tools.mcpServers.*.env.*", "tools.mcpServers.*.cwd", "tools.mcpServers.*.url", "tools.mcpServers.*.headers.*",
	"tools.mcpServers.*.toolTimeout", "tools.mcpServers.*.enabledTools",
	"webui",
}

// nanobotTree is nanobotKeys as a tree of key names; a leaf is an empty
// node. It is built on first use, not at every start of a program that
// links the package.
var nanobotTree = sync.OnceValue(func() *keyNode {
	root := &keyNode{}
	for _, path := range nanobotKeys {
		n := root
		for _, k := range strings.Split(path, ".") {
			n = n.child(k, true)
		}
	}
	return root
})

// keyNode is one level of nanobotTree.
type keyNode struct {
	kids map[string]*keyNode
}

// child returns the node of key k ("*" matches any key), creating it when
// add is set; nil when there is none.
func (n *keyNode) child(k string, add bool) *keyNode {
	if n == nil {
		return nil
	}
	if c, ok := n.kids[k]; ok {
		return c
	}
	if add {
		if n.kids == nil {
			n.kids = map[string]*keyNode{}
		}
		c := &keyNode{}
		n.kids[k] = c
		return c
	}
	return n.kids["*"]
}

// leaf reports whether nothing below n is known: its value is free-form.
func (n *keyNode) leaf() bool { return len(n.kids) == 0 }

// names returns the literal keys of n's level, for suggestions.
func (n *keyNode) names() []string {
	if n == nil {
		return nil
	}
	out := make([]string, 0, len(n.kids))
	for k := range n.kids {
		if k != "*" {
			out = append(out, k)
		}
	}
	return out
}

// nanobotNode returns the node of a key path ("" is the root), nil when
// nanobot does not know the path. List indexes ("allowFrom[0]") are not
// key levels: a list is a value.
func nanobotNode(path string) *keyNode {
	n := nanobotTree()
	if path == "" {
		return n
	}
	for _, k := range strings.Split(path, ".") {
		if n = n.child(k, false); n == nil {
			return nil
		}
	}
	return n
}

// NanobotChannel reports whether nanobot has a channel type of that name
// (telegram, slack, ...): a section of such a type that this build has no
// channel for is skipped, not refused.
func NanobotChannel(name string) bool {
	return nanobotNode("channels."+camelKey(name)) != nil && !nanobotChannelKey(name)
}

// nanobotChannelKeys are nanobot's keys beside the channel sections
// (channels.sendProgress), which are not channel types.
var nanobotChannelKeys = []string{"sendProgress", "sendToolHints", "showReasoning", "extractDocumentText",
	"sendMaxRetries", "transcriptionProvider", "transcriptionLanguage"}

// nanobotChannelKey reports whether name is one of nanobotChannelKeys.
func nanobotChannelKey(name string) bool {
	return slices.Contains(nanobotChannelKeys, camelKey(name))
}

// NanobotChannels returns the channel types nanobot has, sorted.
func NanobotChannels() []string {
	var out []string
	for _, k := range nanobotNode("channels").names() {
		if !nanobotChannelKey(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Closest returns the candidate nearest to name by edit distance when it
// is close enough to be what was meant, for "did you mean" suggestions.
func Closest(name string, candidates []string) (string, bool) { return closest(name, candidates) }
