package server

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// MaxRequestBytes bounds the body of a request: a message larger than the
// mailbox takes (channels.mailbox.maxMessageBytes, 1 MiB by default) fails
// anyway when it is sent on, and a client cannot make the gateway read
// without end.
const MaxRequestBytes = 8 << 20

// Handler is the server's HTTP handler: each fronted agent under
// /agents/<id>/ (its card at .well-known/agent-card.json, its endpoints,
// see front), the default agent's card at the root too. With a token,
// every request but a card's must carry it as a bearer token.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == a2asrv.WellKnownAgentCardPath {
			if s.cfg.Default == "" {
				http.NotFound(w, r)
				return
			}
			a2asrv.NewAgentCardHandler(a2av0.NewAgentCardProducer(s.cardProducer(s.cfg.Default))).ServeHTTP(w, r)
			return
		}
		rest, ok := strings.CutPrefix(p, AgentsPath+"/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		id, sub, _ := strings.Cut(rest, "/")
		card := "/"+sub == a2asrv.WellKnownAgentCardPath
		if !card && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			http.Error(w, "a bearer token is required (Authorization: Bearer <channels.a2a.token>)", http.StatusUnauthorized)
			return
		}
		fr, err := s.front(id, true)
		if err != nil {
			http.Error(w, "no agent "+id+" here: "+err.Error(), http.StatusNotFound)
			return
		}
		if !card {
			r = r.WithContext(withUser(r.Context(), "a2a-client"))
			r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		}
		fr.mux.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the token (always, without one).
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.cfg.Token)) == 1
}

type userKey struct{}

// withUser notes who the request was authenticated as.
func withUser(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, userKey{}, name)
}

// userInterceptor puts the authenticated user in the SDK's call context.
type userInterceptor struct {
	a2asrv.PassthroughCallInterceptor
}

// Before implements a2asrv.CallInterceptor.
func (userInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if name, ok := ctx.Value(userKey{}).(string); ok && (cc.User == nil || !cc.User.Authenticated) {
		cc.User = a2asrv.NewAuthenticatedUser(name, nil)
	}
	return ctx, nil, nil
}
