package catalog

import (
	"strconv"
	"strings"
	"unicode"
)

// Kind is the API a provider speaks.
type Kind int

// The kinds of provider.
const (
	// OpenAICompatible speaks OpenAI's chat completions API.
	OpenAICompatible Kind = iota
	// Anthropic speaks Anthropic's Messages API.
	Anthropic
	// OAuth signs in with OAuth, which switchboard does not support.
	OAuth
)

// String returns the kind's name: the kind under which the package that
// speaks its API registers itself (agentloop.RegisterProvider): "openai"
// (package agentloop/provider/openai), "anthropic", and "oauth", which no
// package speaks.
func (k Kind) String() string {
	switch k {
	case OpenAICompatible:
		return "openai"
	case Anthropic:
		return "anthropic"
	case OAuth:
		return "oauth"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Spec describes one provider nanobot knows.
type Spec struct {
	// Name is nanobot's name, as in agents.defaults.provider ("deepseek").
	Name string
	// Kind is the API it speaks.
	Kind Kind
	// Keywords pick it from a model name in "auto" mode (lower case).
	Keywords []string
	// EnvKey is the environment variable its key may come from when its
	// config has none ("" = only from the config). It is read only when
	// requests go to DefaultBase.
	EnvKey string
	// DefaultBase is its endpoint when apiBase is not set ("" = apiBase
	// is required).
	DefaultBase string
	// Gateway is set for services that route any model (OpenRouter); they
	// come first when "auto" falls back to any configured key.
	Gateway bool
	// KeyOptional is set for servers that may need no key (local ones).
	KeyOptional bool
	// ModelPrefixes are the prefixes a model name may carry in a nanobot
	// config ("deepseek/deepseek-chat") and that are not sent to the
	// provider's own endpoint.
	ModelPrefixes []string
	// StripAnyPrefix drops whatever "org/" prefix the model carries
	// (gateways that want bare model names).
	StripAnyPrefix bool
}

// Specs are the providers nanobot knows, in nanobot's order of priority
// (custom first, then gateways, then the others).
var Specs = []Spec{
	{Name: "custom", KeyOptional: true},
	{Name: "openrouter", Keywords: []string{"openrouter"}, EnvKey: "OPENROUTER_API_KEY",
		DefaultBase: "https://openrouter.ai/api/v1", Gateway: true, ModelPrefixes: []string{"openrouter/"}},
	{Name: "kilo", Keywords: []string{"kilo"}, EnvKey: "KILO_API_KEY",
		DefaultBase: "https://api.kilo.ai/api/gateway", Gateway: true},
	{Name: "aihubmix", Keywords: []string{"aihubmix"},
		DefaultBase: "https://aihubmix.com/v1", Gateway: true, StripAnyPrefix: true},
	{Name: "siliconflow", Keywords: []string{"siliconflow"},
		DefaultBase: "https://api.siliconflow.cn/v1", Gateway: true},
	{Name: "volcengine", Keywords: []string{"volcengine", "volces", "ark"},
		DefaultBase: "https://ark.cn-beijing.volces.com/api/v3", Gateway: true},
	{Name: "anthropic", Kind: Anthropic, Keywords: []string{"anthropic", "claude"}, EnvKey: "ANTHROPIC_API_KEY",
		DefaultBase: "https://api.anthropic.com", ModelPrefixes: []string{"anthropic/"}},
	{Name: "openai", Keywords: []string{"openai", "gpt"}, EnvKey: "OPENAI_API_KEY",
		DefaultBase: "https://api.openai.com/v1", ModelPrefixes: []string{"openai/"}},
	{Name: "openai_codex", Kind: OAuth, Keywords: []string{"openai-codex"}},
	{Name: "github_copilot", Kind: OAuth, Keywords: []string{"github_copilot", "copilot"}},
	{Name: "deepseek", Keywords: []string{"deepseek"}, EnvKey: "DEEPSEEK_API_KEY",
		DefaultBase: "https://api.deepseek.com", ModelPrefixes: []string{"deepseek/"}},
	{Name: "gemini", Keywords: []string{"gemini"}, EnvKey: "GEMINI_API_KEY",
		DefaultBase: "https://generativelanguage.googleapis.com/v1beta/openai", ModelPrefixes: []string{"gemini/"}},
	{Name: "zhipu", Keywords: []string{"zhipu", "glm", "zai"}, EnvKey: "ZAI_API_KEY",
		DefaultBase: "https://open.bigmodel.cn/api/paas/v4", ModelPrefixes: []string{"zhipu/", "zai/"}},
	{Name: "dashscope", Keywords: []string{"qwen", "dashscope"}, EnvKey: "DASHSCOPE_API_KEY",
		DefaultBase: "https://dashscope.aliyuncs.com/compatible-mode/v1", ModelPrefixes: []string{"dashscope/"}},
	{Name: "moonshot", Keywords: []string{"moonshot", "kimi"}, EnvKey: "MOONSHOT_API_KEY",
		DefaultBase: "https://api.moonshot.ai/v1", ModelPrefixes: []string{"moonshot/"}},
	{Name: "minimax", Keywords: []string{"minimax"}, EnvKey: "MINIMAX_API_KEY",
		DefaultBase: "https://api.minimax.io/v1", ModelPrefixes: []string{"minimax/"}},
	{Name: "vllm", Keywords: []string{"vllm"}, EnvKey: "HOSTED_VLLM_API_KEY", KeyOptional: true,
		ModelPrefixes: []string{"hosted_vllm/", "vllm/"}},
	{Name: "ollama", Keywords: []string{"ollama"}, KeyOptional: true,
		DefaultBase: "http://localhost:11434/v1", ModelPrefixes: []string{"ollama/"}},
	{Name: "dashscope_coding_plan", Keywords: []string{"dashscope-coding-plan", "coding-plan"},
		DefaultBase: "https://coding.dashscope.aliyuncs.com/v1", Gateway: true, StripAnyPrefix: true},
	{Name: "groq", Keywords: []string{"groq"}, EnvKey: "GROQ_API_KEY",
		DefaultBase: "https://api.groq.com/openai/v1", ModelPrefixes: []string{"groq/"}},
}

// Lookup returns the spec called name, in any of the spellings a config
// may use: "dashscope_coding_plan", "dashscopeCodingPlan",
// "dashscope-coding-plan".
func Lookup(name string) (Spec, bool) {
	n := normalName(name)
	for _, s := range Specs {
		if normalName(s.Name) == n {
			return s, true
		}
	}
	return Spec{}, false
}

// Names returns the names of the specs, in priority order.
func Names() []string {
	out := make([]string, len(Specs))
	for i, s := range Specs {
		out[i] = s.Name
	}
	return out
}

// normalName returns the form in which two spellings of a name compare
// equal: lower case, without '_' and '-' ("dashscopeCodingPlan" and
// "dashscope_coding_plan" are both "dashscopecodingplan").
func normalName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(name))
}

// matches reports whether the model name picks s by keyword.
func (s Spec) matches(model string) bool {
	lower := strings.ToLower(model)
	snake := strings.ReplaceAll(lower, "-", "_")
	for _, kw := range s.Keywords {
		if strings.Contains(lower, kw) || strings.Contains(snake, strings.ReplaceAll(kw, "-", "_")) {
			return true
		}
	}
	return false
}

// ModelFor returns the model name to send to s's endpoint: without the
// prefix a nanobot config may give it ("anthropic/claude-opus-4-5" →
// "claude-opus-4-5").
func (s Spec) ModelFor(model string) string {
	for _, p := range s.ModelPrefixes {
		if len(model) > len(p) && strings.EqualFold(model[:len(p)], p) {
			return model[len(p):]
		}
	}
	if s.StripAnyPrefix {
		if _, rest, ok := strings.Cut(model, "/"); ok && rest != "" {
			return rest
		}
	}
	return model
}
