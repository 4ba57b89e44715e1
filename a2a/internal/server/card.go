package server

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// SchemeBearer names the bearer token scheme in the cards.
const SchemeBearer a2a.SecuritySchemeName = "bearer"

// cardProducer makes the Agent Card of agent id at each request, from its
// registry card as it is then.
func (s *Server) cardProducer(id string) a2asrv.AgentCardProducer {
	return a2asrv.AgentCardProducerFn(func(ctx context.Context) (*a2a.AgentCard, error) {
		c, err := s.st.Card(ctx, id)
		if errors.Is(err, store.ErrUnknownAgent) {
			c, err = envelope.Card{AgentID: id}, nil // not registered yet: its tasks wait in its inbox
		}
		if err != nil {
			return nil, err
		}
		return s.card(c), nil
	})
}

// card is the A2A card of a mailbox agent: its id as the name, its
// description, a skill per capability (with its roles as tags), the
// endpoints (JSON-RPC first, then HTTP+JSON, in A2A 1.0 and 0.3),
// streaming, and the bearer scheme when a token guards the server.
func (s *Server) card(c envelope.Card) *a2a.AgentCard {
	base := s.cfg.PublicURL + AgentsPath + "/" + c.AgentID
	desc := c.Description
	if desc == "" {
		desc = "switchboard agent " + c.AgentID
	}
	card := &a2a.AgentCard{
		Name:        c.AgentID,
		Description: desc,
		Version:     s.cfg.Version,
		Provider:    &a2a.AgentProvider{Org: "switchboard", URL: "https://github.com/switchboard-dev/switchboard"},
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(base+PathJSONRPC, a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(base+PathREST, a2a.TransportProtocolHTTPJSON),
			{URL: base + PathJSONRPCv0, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
			{URL: base + PathRESTv0, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             []a2a.AgentSkill{},
	}
	tags := slices.Clone(c.Roles)
	if tags == nil {
		tags = []string{}
	}
	for _, capability := range c.Capabilities {
		card.Skills = append(card.Skills, a2a.AgentSkill{ID: capability, Name: capability,
			Description: fmt.Sprintf("%s takes tasks of %s", c.AgentID, capability), Tags: tags})
	}
	if s.cfg.Token != "" {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{SchemeBearer: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "the bearer token of the switchboard gateway (channels.a2a.token)"}}
		card.SecurityRequirements = a2a.SecurityRequirementsOptions{{SchemeBearer: a2a.SecuritySchemeScopes{}}}
	}
	return card
}
