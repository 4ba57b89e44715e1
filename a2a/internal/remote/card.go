package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/tracing"
)

// cardKey is the state record that keeps the last card fetched.
const cardKey = "a2a-card"

// resolveTimeout bounds one fetch of the card.
const resolveTimeout = 10 * time.Second

// resolve fetches the agent's card, in the 1.0 format or the 0.3 one.
func (p *Participant) resolve(ctx context.Context) (*a2a.AgentCard, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	r := &agentcard.Resolver{Client: p.http, CardParser: a2av0.NewAgentCardParser()}
	var opts []agentcard.ResolveOption
	if p.cfg.CardPath != "" {
		opts = append(opts, agentcard.WithPath(p.cfg.CardPath))
	}
	if p.cfg.Token != "" {
		opts = append(opts, agentcard.WithRequestHeader("Authorization", "Bearer "+p.cfg.Token))
	}
	card, err := r.Resolve(ctx, p.cfg.URL, opts...)
	if err != nil {
		return nil, err
	}
	if len(card.SupportedInterfaces) == 0 {
		return nil, errors.New("the card names no endpoint")
	}
	return card, nil
}

// cachedCard returns the card kept by an earlier fetch, or nil.
func (p *Participant) cachedCard(ctx context.Context) *a2a.AgentCard {
	data, err := p.st.LoadState(ctx, p.cfg.Name, cardKey)
	if err != nil || data == nil {
		return nil
	}
	var card a2a.AgentCard
	if json.Unmarshal(data, &card) != nil || len(card.SupportedInterfaces) == 0 {
		return nil
	}
	return &card
}

// useCard makes the client for card and keeps both; with keep, the card
// is also stored for the next start. The card's description and skills go
// on the mailbox card when they changed.
func (p *Participant) useCard(ctx context.Context, card *a2a.AgentCard, keep bool) error {
	client, err := a2aclient.NewFromCard(ctx, card, p.clientOptions()...)
	if err != nil {
		return fmt.Errorf("no client for the card of %s: %w", p.cfg.URL, err)
	}
	p.mu.Lock()
	old := p.client
	p.card, p.client = card, client
	p.mu.Unlock()
	if old != nil {
		_ = old.Destroy()
	}
	if keep {
		if data, err := json.Marshal(card); err == nil {
			if err := p.st.SaveState(ctx, p.cfg.Name, cardKey, data); err != nil {
				p.log.Warn("a2a card not kept", "err", err)
			}
		}
	}
	return nil
}

// identity is what the mailbox card says of the agent: the configured
// description and capabilities, else the card's description and skill
// ids, and where it is.
func (p *Participant) identity(card *a2a.AgentCard) (description string, capabilities []string) {
	description, capabilities = p.cfg.Description, slices.Clone(p.cfg.Capabilities)
	if description == "" && card != nil {
		description = card.Description
	}
	if description == "" {
		description = "an A2A agent"
	}
	description = strings.TrimSpace(description) + " (A2A agent at " + p.cfg.URL + ")"
	if len(capabilities) == 0 && card != nil {
		for _, s := range card.Skills {
			if s.ID != "" && !slices.Contains(capabilities, s.ID) {
				capabilities = append(capabilities, s.ID)
			}
		}
	}
	return description, capabilities
}

// showCard writes the identity of card on the mailbox card, when it
// differs from what is there.
func (p *Participant) showCard(ctx context.Context, card *a2a.AgentCard) {
	desc, caps := p.identity(card)
	_, err := p.st.UpdateCard(ctx, p.cfg.Name, func(c *envelope.Card) {
		if c.AgentID == "" {
			return // not registered (stopped meanwhile): the next start writes it
		}
		c.Description, c.Capabilities = desc, caps
	})
	if err != nil {
		p.log.Warn("mailbox card not updated from the A2A card", "err", err)
	}
}

// refreshLoop fetches the card again at every tick until ctx ends.
func (p *Participant) refreshLoop(ctx context.Context) {
	t := p.clk.NewTicker(p.cfg.Refresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			p.refresh(ctx)
		}
	}
}

// refresh fetches the card once and uses it when it changed.
func (p *Participant) refresh(ctx context.Context) {
	card, err := p.resolve(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn("a2a card not fetched; the last one stays", "url", p.cfg.URL, "err", err)
		}
		return
	}
	p.mu.Lock()
	old := p.card
	p.mu.Unlock()
	if old != nil {
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(card)
		if string(a) == string(b) {
			return
		}
	}
	if err := p.useCard(ctx, card, true); err != nil {
		p.log.Warn("new a2a card not used", "err", err)
		return
	}
	p.showCard(ctx, card)
	p.log.Info("a2a card refreshed", "url", p.cfg.URL, "name", card.Name)
}

// clientOptions are the SDK client's: every transport of A2A 1.0 and of
// 0.3 (through the SDK's compatibility transports), the preferred
// transport first, and the token and the trace context on every call.
func (p *Participant) clientOptions() []a2aclient.FactoryOption {
	opts := []a2aclient.FactoryOption{
		a2aclient.WithJSONRPCTransport(p.http),
		a2aclient.WithRESTTransport(p.http),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: p.http}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: p.http}),
		a2aclient.WithCallInterceptors(headers{token: p.cfg.Token}),
	}
	if p.cfg.Transport != "" {
		opts = append(opts, a2aclient.WithConfig(a2aclient.Config{
			PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocol(p.cfg.Transport)}}))
	}
	return opts
}

// headers adds the bearer token and the W3C trace context to each call.
type headers struct {
	a2aclient.PassthroughInterceptor
	token string
}

// Before implements a2aclient.CallInterceptor.
func (h headers) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	if req.ServiceParams == nil {
		req.ServiceParams = a2aclient.ServiceParams{}
	}
	if h.token != "" {
		req.ServiceParams.Append("Authorization", "Bearer "+h.token)
	}
	for k, v := range tracing.Inject(ctx) {
		req.ServiceParams.Append(k, v)
	}
	return ctx, nil, nil
}
