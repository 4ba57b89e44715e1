package agent

import "context"

// The roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Provider is a chat model: given the conversation so far and the tools on
// offer, it answers with text or with tool calls.
type Provider interface {
	Chat(ctx context.Context, req Request) (*Response, error)
}

// TaskJudge is implemented by a Provider that can decide whether the agent
// should accept a task another agent delegates to it.
type TaskJudge interface {
	JudgeTask(ctx context.Context, task TaskInfo) (accept bool, reason string)
}

// TaskInfo describes a task offered to this agent, for a TaskJudge.
type TaskInfo struct {
	// TaskID is the task's id.
	TaskID string
	// From is the agent that sent the task.
	From string
	// Text is the work asked for.
	Text string
	// Capabilities are this agent's own capabilities (Config.Capabilities).
	Capabilities []string
}

// Request is one call to a Provider.
type Request struct {
	// Model names the model ("" = the provider's own default).
	Model string
	// Messages is the conversation: the system prompt, the history and the
	// new message, oldest first.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []ToolSpec
	// MaxTokens caps the length of the answer.
	MaxTokens int
	// Temperature is the sampling temperature.
	Temperature float64
}

// Message is one entry of a conversation. It is also the record stored in
// a session's history file.
type Message struct {
	// Role is RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role string `json:"role"`
	// Content is the text.
	Content string `json:"content"`
	// Name optionally names the participant (the tool, for RoleTool).
	Name string `json:"name,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, for RoleTool, the id of the call this message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// InboundID is, for a RoleUser message, the channel's id of the
	// message it records (bus.InboundMessage.ID): a message handed over
	// again after a crash is answered from the history, not asked again.
	InboundID string `json:"inbound_id,omitempty"`
}

// ToolCall is one tool invocation asked for by the model.
type ToolCall struct {
	// ID identifies the call; the tool result quotes it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is a JSON object, as a string.
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	// Name is the tool's name (letters, digits, '_' and '-').
	Name string `json:"name"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description"`
	// Parameters is the JSON schema of the arguments object.
	Parameters map[string]any `json:"parameters"`
}

// Response is a Provider's answer.
type Response struct {
	// Content is the text of the answer.
	Content string
	// ToolCalls, when not empty, are tools to run before the final answer.
	ToolCalls []ToolCall
	// FinishReason is why the model stopped ("stop", "tool_calls", ...).
	FinishReason string
	// Usage is what the call cost, when the server reported it.
	Usage Usage
	// Model is the model that answered, as the server named it ("" when
	// it did not say).
	Model string
}

// TaskFailure is the error a Provider returns to fail, on purpose, the
// mailbox task it is answering: the work cannot be done (a division by
// zero, a file that does not exist). Unlike any other error, which the
// loop reports as "the model could not be reached", its Reason is what the
// agent that sent the task is told.
type TaskFailure struct {
	// Reason says why, in one short sentence.
	Reason string
}

// Error returns the reason.
func (e *TaskFailure) Error() string { return e.Reason }
