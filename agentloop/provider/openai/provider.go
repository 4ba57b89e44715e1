package openai

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/switchboard-dev/switchboard/agent"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Provider talks to an OpenAI-compatible chat completions endpoint. It is
// safe for concurrent use.
type Provider struct {
	cfg    Config
	client oai.Client
}

var _ agent.Provider = (*Provider)(nil)

// openAIHost is the host of DefaultAPIBase.
const openAIHost = "api.openai.com"

// New returns a Provider for cfg.
func New(cfg Config) (*Provider, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The base URL and the key are always set here, over what the library
	// reads from the environment, so that a key goes only where cfg says.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.APIBase),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.Timeout),
	}
	if u, _ := url.Parse(cfg.APIBase); u.Hostname() != openAIHost {
		// OPENAI_ORG_ID and OPENAI_PROJECT_ID are OpenAI's, not another server's.
		opts = append(opts, option.WithHeaderDel("OpenAI-Organization"), option.WithHeaderDel("OpenAI-Project"))
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.ExtraHeaders)) {
		opts = append(opts, option.WithHeader(k, cfg.ExtraHeaders[k]))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{cfg: cfg, client: oai.NewClient(opts...)}, nil
}

// Chat sends one chat completion request.
func (p *Provider) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	model := p.cfg.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, errors.New("openai provider: no model: set providers.<name>.model or agents.defaults.model")
	}
	params, err := toParams(model, req)
	if err != nil {
		return nil, err
	}
	var httpResp *http.Response
	resp, err := p.client.Chat.Completions.New(ctx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return nil, p.wrapError(ctx, err, httpResp)
	}
	return fromCompletion(resp)
}

// wrapError explains a failed call: the caller's cancellation, a timeout,
// the server's refusal (a *StatusError) or a transport failure.
func (p *Provider) wrapError(ctx context.Context, err error, httpResp *http.Response) error {
	if ctx.Err() != nil {
		return fmt.Errorf("openai provider: %w", ctx.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai provider: no answer within %s (the provider's timeout): %w", p.cfg.Timeout, err)
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		return newStatusError(apiErr.StatusCode, apiErr.Message, apiErr.Type, apiErr.Code, httpResp, err)
	}
	if httpResp != nil && httpResp.StatusCode >= 400 {
		return newStatusError(httpResp.StatusCode, "", "", "", httpResp, err)
	}
	return fmt.Errorf("openai provider: request failed: %w", err)
}
