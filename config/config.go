package config

import (
	"strconv"
	"strings"
	"time"
)

// Defaults of the agent and provider settings, applied by Default and
// ProviderConfig.TimeoutDuration.
const (
	DefaultWorkspace = "~/.nanobot/workspace"
	// DefaultProvider is "auto": the provider is chosen from the model
	// name and the keys configured, as nanobot does (see package
	// agentloop/provider/catalog); with neither, the scripted provider.
	DefaultProvider              = "auto"
	DefaultMaxTokens             = 4096
	DefaultTemperature           = 0.2
	DefaultMaxToolIterations     = 20
	DefaultMaxConcurrentSessions = 8
	// DefaultProviderTimeout is a provider's request timeout when its
	// config leaves "timeout" out or zero.
	DefaultProviderTimeout = 60 * time.Second
	// DefaultProviderMaxRetries is a provider's retries of a failed
	// request when its maxRetries is not set.
	DefaultProviderMaxRetries = 2
	// DefaultJudgeTimeout bounds the model's judgement on a delegated
	// task when agents.defaults.judgeTimeout is zero.
	DefaultJudgeTimeout = 20 * time.Second
)

// The values of AgentDefaults.Judge: how the agent decides whether to
// accept a task another agent delegates to it.
const (
	// JudgeLLM asks the model (the scripted provider keeps its own rule).
	// It is the default.
	JudgeLLM = "llm"
	// JudgeCapabilities accepts a task whose text names one of the
	// agent's capabilities (channels.mailbox.capabilities; "*" accepts all).
	JudgeCapabilities = "capabilities"
	// JudgeAccept accepts every task.
	JudgeAccept = "accept"
)

// Config is the whole file: the top-level sections as nanobot has them.
type Config struct {
	// Agents holds the agent loop's settings.
	Agents AgentsConfig `json:"agents"`
	// Channels holds each channel's section raw, keyed by channel type
	// name ("mailbox"). Each channel type decodes its own section with
	// Section.Decode; this package knows none of them.
	Channels map[string]Section `json:"channels"`
	// Providers holds the LLM providers' settings keyed by provider name.
	Providers map[string]ProviderConfig `json:"providers"`
	// Gateway and Tools are nanobot's sections of the same names. They are
	// accepted, so one file serves nanobot and switchboard; of them only
	// tools.mcpServers is used (see MCPServers): switchboard has no gateway
	// and configures no built-in tools. Their keys are checked against
	// nanobot's schema.
	Gateway map[string]any `json:"gateway" config:"nanobot"`
	Tools   map[string]any `json:"tools" config:"nanobot"`
	// Observability holds switchboard's own settings of logs, metrics and
	// tracing; nanobot has no such section and ignores it.
	Observability ObservabilityConfig `json:"observability"`
	// Path is the file the configuration came from ("" when none was read).
	Path string `json:"-"`
	// Report says what Load, and the channels since, made of each key
	// (nil for a Config that Load did not make).
	Report *Report `json:"-"`
}

// AgentsConfig is the "agents" section.
type AgentsConfig struct {
	// Defaults applies to every agent the process runs.
	Defaults AgentDefaults `json:"defaults"`
}

// AgentDefaults is the "agents.defaults" section.
type AgentDefaults struct {
	// Workspace is the agent's working folder; it may start with "~/".
	Workspace string `json:"workspace"`
	// Model is the model name passed to the provider ("" = the provider's own).
	Model string `json:"model"`
	// Provider is a provider name as nanobot has them ("anthropic",
	// "openai", "deepseek", ...), the name of an entry of Config.Providers
	// with an apiBase, "scripted", or "auto" (the default: chosen from
	// Model and the keys configured).
	Provider string `json:"provider"`
	// MaxTokens caps the tokens of one completion.
	MaxTokens int `json:"maxTokens"`
	// Temperature is the sampling temperature.
	Temperature float64 `json:"temperature"`
	// MaxToolIterations caps the tool calls of one turn.
	MaxToolIterations int `json:"maxToolIterations"`
	// MaxConcurrentSessions caps the sessions handled at the same time.
	MaxConcurrentSessions int `json:"maxConcurrentSessions"`
	// SystemPrompt, when set, is the whole system prompt: it replaces the
	// one built from the workspace's files and the agent's identity.
	SystemPrompt string `json:"systemPrompt"`
	// SystemPromptFile names a file whose text is the whole system prompt
	// (read at start; "~/" is expanded, a relative path is taken from the
	// workspace). It cannot be set together with SystemPrompt.
	SystemPromptFile string `json:"systemPromptFile"`
	// Judge is how delegated tasks are accepted: JudgeLLM (default),
	// JudgeCapabilities or JudgeAccept.
	Judge string `json:"judge"`
	// JudgeTimeout bounds the model's judgement, in seconds; zero means
	// DefaultJudgeTimeout. A judgement that fails or times out accepts the
	// task (and logs a warning).
	JudgeTimeout float64 `json:"judgeTimeout"`
	// Approval lists the tool calls and tasks that wait for a person's
	// approval (switchboard's own key; nanobot has none).
	Approval ApprovalConfig `json:"approval"`
	// Notices says how news of delegated work under way is told to the
	// person (switchboard's own key): see NoticesConfig.
	Notices NoticesConfig `json:"notices"`
}

// The values of NoticesConfig.Mode.
const (
	// NoticesTemplate tells notices from templates, without a model turn
	// (the default).
	NoticesTemplate = "template"
	// NoticesModel puts them through the model, as any chat message.
	NoticesModel = "model"
)

// The values of NoticesConfig.Language.
const (
	// LanguageAuto picks the templates' language from the system prompt
	// (the default).
	LanguageAuto = "auto"
	// LanguageEnglish and LanguageChinese pick English or Chinese.
	LanguageEnglish = "en"
	LanguageChinese = "zh"
)

// NoticeEvents are the events a notice template is written for:
// "delegated" (the agent handed work to another, and its turn ends),
// "accepted", "working" and "pending" (the other agent accepted it, works
// on it, has not taken it up), and "update" (any other state).
var NoticeEvents = []string{"delegated", "accepted", "working", "pending", "update"}

// NoticesConfig is "agents.defaults.notices": how the agent tells the
// person of work it delegated that is under way (handed over, accepted,
// being worked on, waiting). The result of the work always goes through
// the model, with the conversation.
type NoticesConfig struct {
	// Mode is NoticesTemplate (the default: worded from a template, no
	// model call) or NoticesModel (a model turn for each).
	Mode string `json:"mode"`
	// Language is the language of the templates: LanguageAuto (the
	// default: Chinese when the system prompt asks for Chinese or is
	// written mostly in it, English otherwise), LanguageEnglish or
	// LanguageChinese.
	Language string `json:"language"`
	// Templates replace the language's template of an event (one of
	// NoticeEvents): see NoticeTemplate.
	Templates map[string]string `json:"templates"`
}

// DefaultApprovalTimeout is how long an approval waits when
// agents.defaults.approval.timeout is zero; with no answer it is denied.
const DefaultApprovalTimeout = 5 * time.Minute

// ApprovalConfig is "agents.defaults.approval".
type ApprovalConfig struct {
	// Tools are the tools whose every call needs approval ("*": all).
	Tools []string `json:"tools"`
	// Tasks are the task kinds that need approval before a delegated task
	// is worked on: a task whose subject or text names one ("*": all).
	Tasks []string `json:"tasks"`
	// Timeout is how long to wait for a decision, in seconds (0: the
	// default, 5 minutes); with none by then the step is denied.
	Timeout float64 `json:"timeout"`
	// Channel and ChatID name the operator's chat, where every question
	// is asked; empty: in the user's chat.
	Channel string `json:"channel"`
	ChatID  string `json:"chatId"`
}

// TimeoutDuration returns Timeout as a duration, DefaultApprovalTimeout
// when it is zero.
func (a ApprovalConfig) TimeoutDuration() time.Duration {
	if a.Timeout <= 0 {
		return DefaultApprovalTimeout
	}
	return time.Duration(a.Timeout * float64(time.Second))
}

// JudgeTimeoutDuration returns JudgeTimeout as a duration,
// DefaultJudgeTimeout when it is zero (or less).
func (d AgentDefaults) JudgeTimeoutDuration() time.Duration {
	if d.JudgeTimeout <= 0 {
		return DefaultJudgeTimeout
	}
	return time.Duration(d.JudgeTimeout * float64(time.Second))
}

// ProviderConfig is one entry of the "providers" section.
type ProviderConfig struct {
	// APIKey is the provider's secret key.
	APIKey string `json:"apiKey"`
	// APIBase is the provider's base URL ("" = the provider's default).
	APIBase string `json:"apiBase"`
	// Model overrides AgentDefaults.Model for this provider.
	Model string `json:"model"`
	// Timeout is the request timeout in seconds; zero means the default,
	// see TimeoutDuration.
	Timeout float64 `json:"timeout"`
	// MaxRetries is how often a failed request is retried; Load sets
	// DefaultProviderMaxRetries when the key is absent.
	MaxRetries int `json:"maxRetries"`
	// ExtraHeaders are sent with every request to this provider (such as
	// "APP-Code" for AiHubMix), as nanobot's extraHeaders.
	ExtraHeaders map[string]string `json:"extraHeaders"`
}

// TimeoutDuration returns Timeout as a duration, DefaultProviderTimeout when
// Timeout is zero (or less).
func (p ProviderConfig) TimeoutDuration() time.Duration {
	if p.Timeout <= 0 {
		return DefaultProviderTimeout
	}
	return time.Duration(p.Timeout * float64(time.Second))
}

// Default returns the configuration used when there is no file: the
// defaults of every known setting, no channels and no providers.
func Default() *Config {
	return &Config{
		Agents: AgentsConfig{Defaults: AgentDefaults{
			Workspace:             DefaultWorkspace,
			Provider:              DefaultProvider,
			MaxTokens:             DefaultMaxTokens,
			Temperature:           DefaultTemperature,
			MaxToolIterations:     DefaultMaxToolIterations,
			MaxConcurrentSessions: DefaultMaxConcurrentSessions,
		}},
		Channels:  map[string]Section{},
		Providers: map[string]ProviderConfig{},
	}
}

// Validate checks the ranges of the settings this package knows; Load calls
// it. Each problem is a *KeyError wrapping ErrInvalidValue.
func (c *Config) Validate() error {
	var p problems
	c.validate(&p)
	return p.err()
}

func (c *Config) validate(p *problems) {
	d := c.Agents.Defaults
	const prefix = "agents.defaults."
	atLeastOne := func(key string, v int) {
		if v < 1 {
			p.invalid(prefix+key, "want a whole number of 1 or more, got %d", v)
		}
	}
	atLeastOne("maxTokens", d.MaxTokens)
	atLeastOne("maxToolIterations", d.MaxToolIterations)
	atLeastOne("maxConcurrentSessions", d.MaxConcurrentSessions)
	if d.Temperature < 0 {
		p.invalid(prefix+"temperature", "want a number of 0 or more, got %s", show(d.Temperature))
	}
	switch d.Judge {
	case "", JudgeLLM, JudgeCapabilities, JudgeAccept:
	default:
		p.invalid(prefix+"judge", "want %q, %q or %q, got %q", JudgeLLM, JudgeCapabilities, JudgeAccept, d.Judge)
	}
	if d.JudgeTimeout < 0 {
		p.invalid(prefix+"judgeTimeout", "want a number of seconds of 0 or more, got %s", show(d.JudgeTimeout))
	}
	if msg := approvalTimeoutRange.Problem(d.Approval.Timeout); msg != "" {
		p.invalid(prefix+"approval.timeout", "%s", msg)
	}
	if (d.Approval.Channel == "") != (d.Approval.ChatID == "") {
		p.invalid(prefix+"approval.chatId", "set both channel and chatId (the operator's chat), or neither")
	}
	for _, l := range []struct {
		key   string
		names []string
	}{{"tools", d.Approval.Tools}, {"tasks", d.Approval.Tasks}} {
		for i, n := range l.names {
			key := prefix + "approval." + l.key + "[" + strconv.Itoa(i) + "]"
			if strings.TrimSpace(n) == "" && !p.has(key) { // not a string at all: said already
				p.invalid(key, "an empty name: list %s by name, or \"*\" for all", l.key)
			}
		}
	}
	d.Notices.validate(p, prefix+"notices.")
	c.Observability.validate(p)
	if d.SystemPrompt != "" && d.SystemPromptFile != "" {
		p.invalid(prefix+"systemPromptFile", "set systemPrompt or systemPromptFile, not both")
	}
	for name, pc := range c.Providers {
		if msg := providerTimeoutRange.Problem(pc.Timeout); msg != "" {
			p.invalid("providers."+name+".timeout", "%s", msg)
		}
		if pc.MaxRetries < 0 {
			p.invalid("providers."+name+".maxRetries", "want a whole number of 0 or more, got %d", pc.MaxRetries)
		}
		for h := range pc.ExtraHeaders {
			if !validHeaderName(h) {
				p.invalid("providers."+name+".extraHeaders."+h, "not a valid HTTP header name: use letters, digits and '-'")
			}
		}
	}
}

// approvalTimeoutRange bounds an approval's wait: a person needs some
// time, and a turn should not wait more than a day.
var approvalTimeoutRange = SecondsRange{Min: 1, Max: Day, Zero: "the default (300 s)"}

// providerTimeoutRange bounds a provider's timeout: a request needs some
// time, and a day is longer than any request should take (and far from
// what a time.Duration holds).
var providerTimeoutRange = SecondsRange{Min: MinPeriod, Max: Day, Zero: "the default (60 s)"}

// Section returns the raw section of channel type name ("mailbox"); a
// snake_case name is looked up in camelCase too.
func (c *Config) Section(name string) (Section, bool) {
	if s, ok := c.Channels[name]; ok {
		return s, true
	}
	s, ok := c.Channels[camelKey(name)]
	return s, ok
}

// validHeaderName reports whether h is an HTTP header name (RFC 9110 token).
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range []byte(h) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
