// Package anthropic is an agentloop.Provider for Anthropic's Messages API,
// built on the official SDK, github.com/anthropics/anthropic-sdk-go.
//
// It maps agentloop requests to Messages requests: the system messages
// become the system prompt, tool specs become tools, an assistant's tool
// calls become tool_use blocks and tool results become tool_result blocks
// of the next user turn (consecutive messages of one role are merged, as
// the API wants them). The answer's text blocks and tool_use blocks come
// back as a Response.
//
// Prompt caching: every request carries two cache_control breakpoints,
// one at the end of the stable prefix (the tools and the system prompt)
// and one at the end of the conversation (see markCache), and the usage
// reports the tokens read from the cache (Usage.CachedTokens) and written
// to it (Usage.CacheWriteTokens), both part of Usage.InputTokens.
//
// The key is sent (as x-api-key) to Config.APIBase only. The SDK's
// environment defaults (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// ANTHROPIC_AUTH_TOKEN, profiles) are not read: the caller decides where
// requests go and with which key. Each attempt is bounded by
// Config.Timeout; failed attempts (connection errors, 408, 409, 429, 5xx)
// are retried up to Config.MaxRetries times by the SDK. A server's refusal
// comes back as a *StatusError.
package anthropic
