package mcpserver

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/internal/token"
)

// HTTPPath is where HTTPHandler serves MCP.
const HTTPPath = "/mcp"

// HTTPOptions configure HTTPHandler.
type HTTPOptions struct {
	// Token, when set, is what every request must carry, as
	// "Authorization: Bearer <token>"; a request without it is answered
	// 401. Empty: none is asked (for a loopback address only: the command
	// line refuses another without a token).
	Token string
}

// HTTPHandler serves the server over streamable HTTP at HTTPPath. Every
// request must carry o.Token when it is set (compared in constant time).
// The SDK's protections stay on: a request that reached a loopback
// address with another Host (DNS rebinding) is refused, and so is a
// browser's cross-origin request.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	h := http.NewCrossOriginProtection().Handler(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil))
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	if o.Token == "" {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !token.Equal(token.Bearer(r.Header.Get("Authorization")), o.Token) {
			s.log.Warn("mcp request refused: no token or a wrong one", "remote", r.RemoteAddr, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard mcp"`)
			http.Error(w, "unauthorized: this server needs its token (Authorization: Bearer <token>)", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}
