package agentloop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

// Defaults of Config.
const (
	DefaultWorkspace             = config.DefaultWorkspace
	DefaultMaxTokens             = config.DefaultMaxTokens
	DefaultMaxToolIterations     = config.DefaultMaxToolIterations
	DefaultMaxConcurrentSessions = config.DefaultMaxConcurrentSessions
	// DefaultHistoryWindow is how many history messages a request carries
	// at most.
	DefaultHistoryWindow = 100
	// DefaultQueueSize is how many messages may wait for their session.
	DefaultQueueSize = 256
)

// DefaultJudgeTimeout bounds the model's judgement on a task when
// Config.JudgeTimeout is zero.
const DefaultJudgeTimeout = config.DefaultJudgeTimeout

// Config configures a Loop. The zero value of each setting takes its
// default; Bus and Provider are required.
type Config struct {
	// Workspace is the agent's folder; "~/" is expanded. Session histories
	// are kept in its "sessions" subfolder. Default ~/.nanobot/workspace.
	Workspace string
	// Model is passed to the provider ("" = the provider's default).
	Model string
	// MaxTokens caps one answer (default 4096).
	MaxTokens int
	// Temperature is the sampling temperature (0 is a valid value).
	Temperature float64
	// MaxToolIterations caps the provider calls of one turn that may ask
	// for tools (default 20); past it the turn ends with a note saying so.
	MaxToolIterations int
	// MaxConcurrentSessions caps the sessions handled at once (default 8).
	MaxConcurrentSessions int
	// SystemPrompt, when set, is the whole system prompt of every request.
	// When empty the prompt is built for each turn as nanobot builds it
	// (see the package comment): DefaultSystemPrompt, the workspace's
	// BootstrapFiles, and the agent's identity.
	SystemPrompt string
	// SystemPromptFile names a file whose text is the whole system prompt;
	// New reads it ("~/" is expanded, a relative path is taken from the
	// workspace). It cannot be set together with SystemPrompt.
	SystemPromptFile string

	// AgentID is the agent's id among other agents ("" when no channel
	// gives it one: the prompt then has no identity section). It, and
	// the three fields below, come from the channel that gives the agent
	// its identity (IdentityChannel; the mailbox's card): see SetProfile.
	AgentID string
	// Description is what the agent's card says it does.
	Description string
	// Capabilities are the agent's own capabilities, shown in the prompt
	// and passed to the task judgement.
	Capabilities []string
	// Roles are the agent's broader labels.
	Roles []string

	// Judge is how a delegated task is accepted (see Loop.Judge):
	// config.JudgeLLM ("llm", the default), config.JudgeCapabilities or
	// config.JudgeAccept.
	Judge string
	// JudgeTimeout bounds one judgement (default DefaultJudgeTimeout).
	JudgeTimeout time.Duration
	// Notices says how news of delegated work under way is told: from
	// templates without a model turn (the default), or by the model (see
	// NoticeConfig and bus.KindNotice).
	Notices NoticeConfig
	// HistoryWindow is how many of the latest history messages a request
	// carries at most (default 100); the file keeps everything.
	HistoryWindow int
	// QueueSize caps the messages taken from the bus that wait for their
	// session's turn (default 256); when it is reached, Run takes no more
	// from the bus until one starts.
	QueueSize int

	// Bus is where messages come from and replies go (required).
	Bus *bus.Bus
	// Provider answers (required).
	Provider agent.Provider
	// Tools are offered to the provider (nil: none).
	Tools *Tools
	// ToolStatus, when set, tells the model which tools cannot be used
	// now (an MCP server that is down), per turn (see ToolStatus).
	ToolStatus ToolStatus
	// Hooks observe turns, provider calls and tool calls, and may refuse a
	// provider call (see Hook); they run in order.
	Hooks []agent.Hook
	// Approval says which tool calls and tasks wait for a person's
	// approval, and how (see ApprovalConfig); the zero value: none.
	Approval ApprovalConfig
	// Answers take the chat messages that answer a question a channel
	// asked in the chat (AnswerChannel) before the model sees them: each
	// reports whether it took the message (and finished it).
	Answers []func(ctx context.Context, in bus.InboundMessage) bool
	// Logger receives logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// FromDefaults returns a Config with the settings of an "agents.defaults"
// section; the caller adds the dependencies.
func FromDefaults(d config.AgentDefaults) Config {
	return Config{
		Workspace:             d.Workspace,
		Model:                 d.Model,
		MaxTokens:             d.MaxTokens,
		Temperature:           d.Temperature,
		MaxToolIterations:     d.MaxToolIterations,
		MaxConcurrentSessions: d.MaxConcurrentSessions,
		SystemPrompt:          d.SystemPrompt,
		SystemPromptFile:      d.SystemPromptFile,
		Judge:                 d.Judge,
		JudgeTimeout:          d.JudgeTimeoutDuration(),
		Approval: ApprovalConfig{Tools: d.Approval.Tools, Tasks: d.Approval.Tasks, Timeout: time.Duration(d.Approval.Timeout * float64(time.Second)),
			Channel: d.Approval.Channel, ChatID: d.Approval.ChatID},
		Notices: NoticeConfig{Mode: d.Notices.Mode, Language: d.Notices.Language, Templates: d.Notices.Templates},
	}
}

func (c *Config) setDefaults() {
	if c.Workspace == "" {
		c.Workspace = DefaultWorkspace
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxToolIterations == 0 {
		c.MaxToolIterations = DefaultMaxToolIterations
	}
	if c.MaxConcurrentSessions == 0 {
		c.MaxConcurrentSessions = DefaultMaxConcurrentSessions
	}
	if c.Judge == "" {
		c.Judge = config.JudgeLLM
	}
	if c.JudgeTimeout == 0 {
		c.JudgeTimeout = DefaultJudgeTimeout
	}
	if c.Notices.Mode == "" {
		c.Notices.Mode = config.NoticesTemplate
	}
	if c.Notices.Language == "" {
		c.Notices.Language = config.LanguageAuto
	}
	if c.HistoryWindow == 0 {
		c.HistoryWindow = DefaultHistoryWindow
	}
	if c.QueueSize == 0 {
		c.QueueSize = DefaultQueueSize
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports every setting out of range and every missing
// dependency, after the defaults are applied.
func (c *Config) Validate() error {
	var errs []error
	positive := []struct {
		name string
		v    int
	}{
		{"maxTokens", c.MaxTokens}, {"maxToolIterations", c.MaxToolIterations},
		{"maxConcurrentSessions", c.MaxConcurrentSessions},
		{"historyWindow", c.HistoryWindow}, {"queueSize", c.QueueSize},
	}
	for _, p := range positive {
		if p.v < 1 {
			errs = append(errs, fmt.Errorf("agent loop: %s: want 1 or more, got %d", p.name, p.v))
		}
	}
	if c.Temperature < 0 {
		errs = append(errs, fmt.Errorf("agent loop: temperature: want 0 or more, got %v", c.Temperature))
	}
	if c.Workspace == "" {
		errs = append(errs, errors.New("agent loop: workspace: required"))
	}
	switch c.Judge {
	case config.JudgeLLM, config.JudgeCapabilities, config.JudgeAccept:
	default:
		errs = append(errs, fmt.Errorf("agent loop: judge: want %q, %q or %q, got %q",
			config.JudgeLLM, config.JudgeCapabilities, config.JudgeAccept, c.Judge))
	}
	if c.JudgeTimeout < 0 {
		errs = append(errs, fmt.Errorf("agent loop: judgeTimeout: want 0 or more, got %s", c.JudgeTimeout))
	}
	switch c.Notices.Mode {
	case config.NoticesTemplate, config.NoticesModel:
	default:
		errs = append(errs, fmt.Errorf("agent loop: notices.mode: want %q or %q, got %q",
			config.NoticesTemplate, config.NoticesModel, c.Notices.Mode))
	}
	switch c.Notices.Language {
	case config.LanguageAuto, config.LanguageEnglish, config.LanguageChinese:
	default:
		errs = append(errs, fmt.Errorf("agent loop: notices.language: want %q, %q or %q, got %q",
			config.LanguageAuto, config.LanguageEnglish, config.LanguageChinese, c.Notices.Language))
	}
	if c.Approval.Timeout < 0 {
		errs = append(errs, fmt.Errorf("agent loop: approval.timeout: want 0 or more, got %s", c.Approval.Timeout))
	}
	if (c.Approval.Channel == "") != (c.Approval.ChatID == "") {
		errs = append(errs, errors.New("agent loop: approval: set both channel and chatId (the operator's chat), or neither"))
	}
	if c.SystemPrompt != "" && c.SystemPromptFile != "" {
		errs = append(errs, errors.New("agent loop: systemPromptFile: set systemPrompt or systemPromptFile, not both"))
	}
	if c.Bus == nil {
		errs = append(errs, errors.New("agent loop: Bus is required"))
	}
	if c.Provider == nil {
		errs = append(errs, errors.New("agent loop: Provider is required (the scripted provider needs no API key)"))
	}
	return errors.Join(errs...)
}
