// Package openai is an agentloop.Provider for OpenAI's chat completions
// API and every server that speaks it (vLLM, Ollama, LM Studio, gateways),
// built on github.com/openai/openai-go/v3.
//
// It maps agentloop requests (messages, tool specs, tool calls and tool
// results) to chat completion requests and back. The usage of an answer
// includes the prompt tokens the server served from its prompt cache
// (prompt_tokens_details.cached_tokens, in Usage.CachedTokens): OpenAI
// caches a request's longest prefix seen before on its own, from 1,024
// tokens on, so the loop keeps that prefix (tools, system prompt, past
// messages) the same from call to call. Each attempt is bounded
// by Config.Timeout; failed attempts (connection errors, 408, 409, 429 and
// 5xx) are retried up to Config.MaxRetries times by the library, with
// exponential backoff and honouring Retry-After. A server's refusal comes
// back as a *StatusError carrying the status code and the server's message.
package openai
