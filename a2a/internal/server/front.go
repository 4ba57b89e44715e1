package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// AgentsPath is the path under which each fronted agent is served:
// AgentsPath + "/<agent id>".
const AgentsPath = "/agents"

// The paths of an agent's endpoints, under its base path.
const (
	PathJSONRPC   = "/jsonrpc"      // JSON-RPC, A2A 1.0
	PathREST      = "/rest"         // HTTP+JSON, A2A 1.0
	PathJSONRPCv0 = "/v0.3/jsonrpc" // JSON-RPC, A2A 0.3
	PathRESTv0    = "/v0.3/rest"    // HTTP+JSON, A2A 0.3
)

// errNotFronted is returned for an agent the gateway does not front.
var errNotFronted = errors.New("not an agent this gateway fronts")

// front is one fronted agent: its SDK request handler (over the shared
// task store, seeing the agent's tasks only) and its endpoints.
type front struct {
	id      string
	handler a2asrv.RequestHandler
	mux     http.Handler
}

// isFronted reports whether the configuration fronts agent id.
func (s *Server) isFronted(id string) bool {
	return slices.Contains(s.cfg.Agents, id) || slices.Contains(s.cfg.Agents, "*") && id != s.ch.AgentID()
}

// front returns the front of agent id, made on first use. With check, an
// agent the configuration does not front is refused, and so is one that
// only "*" fronts and that is not registered (a client cannot make up
// agents); without (a task of the agent exists), it is made regardless.
func (s *Server) front(id string, check bool) (*front, error) {
	if err := envelope.ValidateAgentID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	fr, ok := s.fronts[id]
	s.mu.Unlock()
	if ok {
		return fr, nil
	}
	if check && !s.isFronted(id) {
		return nil, fmt.Errorf("%s: %w", id, errNotFronted)
	}
	if check && !slices.Contains(s.cfg.Agents, id) {
		if _, err := s.st.Card(context.Background(), id); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", id, errNotFronted, err)
		}
	}
	ex := &executor{s: s, agent: id}
	var h a2asrv.RequestHandler = a2asrv.NewHandler(ex,
		a2asrv.WithTaskStore(agentTasks{t: s.tasks, agent: id}),
		a2asrv.WithLogger(s.log.With("a2a_agent", id)),
		a2asrv.WithCallInterceptors(userInterceptor{}),
	)
	h = handler{RequestHandler: h, s: s, agent: id}
	mux := http.NewServeMux()
	base := AgentsPath + "/" + id
	mux.Handle("GET "+base+a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewAgentCardProducer(s.cardProducer(id))))
	mux.Handle("OPTIONS "+base+a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewAgentCardProducer(s.cardProducer(id))))
	mux.Handle(base+PathJSONRPC, a2asrv.NewJSONRPCHandler(h))
	mux.Handle(base+PathREST+"/", http.StripPrefix(base+PathREST, a2asrv.NewRESTHandler(h)))
	mux.Handle(base+PathJSONRPCv0, a2av0.NewJSONRPCHandler(h))
	mux.Handle(base+PathRESTv0+"/", http.StripPrefix(base+PathRESTv0, a2av0.NewRESTHandler(h)))
	fr = &front{id: id, handler: h, mux: mux}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.fronts[id]; ok {
		return got, nil
	}
	s.fronts[id] = fr
	return fr, nil
}
