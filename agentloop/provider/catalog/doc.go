// Package catalog knows the LLM providers nanobot knows, by the names
// nanobot's config uses (providers.openai, providers.deepseek, ...), and
// chooses the one a configuration asks for, as nanobot does.
//
// Each Spec says how a provider is spoken to (the OpenAI-compatible chat
// completions API, or Anthropic's Messages API), its default endpoint,
// the environment variable its key may come from, and the keywords that
// pick it from a model name.
//
// Resolve turns agents.defaults.provider, agents.defaults.model and the
// providers section into a Choice: which provider, at which URL, with which
// key and model. Its rule that matters most: a key is only ever sent to its
// own provider's endpoint, the provider's default one or the apiBase
// configured beside the key. A provider with neither is a configuration
// error, never a guess.
package catalog
