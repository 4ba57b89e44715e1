package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/agent"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// Provider talks to Anthropic's Messages API. It is safe for concurrent use.
type Provider struct {
	cfg    Config
	client sdk.Client
}

var _ agent.Provider = (*Provider)(nil)

// New returns a Provider for cfg.
func New(cfg Config) (*Provider, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(), // no key or URL from the environment
		option.WithBaseURL(cfg.APIBase),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.Timeout),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.ExtraHeaders)) {
		opts = append(opts, option.WithHeader(k, cfg.ExtraHeaders[k]))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// Chat sends one Messages request.
func (p *Provider) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	model := p.cfg.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, errors.New("anthropic provider: no model: set providers.anthropic.model or agents.defaults.model")
	}
	params, err := toParams(model, req)
	if err != nil {
		return nil, err
	}
	msg, err := p.client.Messages.New(ctx, params)
	if err != nil {
		return nil, p.wrapError(ctx, err)
	}
	return fromMessage(msg)
}

// wrapError explains a failed call: the caller's cancellation, a timeout,
// the server's refusal (a *StatusError) or a transport failure.
func (p *Provider) wrapError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("anthropic provider: %w", ctx.Err())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("anthropic provider: no answer within %s (the provider's timeout): %w", p.cfg.Timeout, err)
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		se := &StatusError{StatusCode: apiErr.StatusCode, err: err}
		var body struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil {
			se.Type, se.Message = body.Error.Type, body.Error.Message
		}
		if se.Message == "" {
			se.Message = clipBody(apiErr.RawJSON())
		}
		return se
	}
	return fmt.Errorf("anthropic provider: request failed: %w", err)
}
