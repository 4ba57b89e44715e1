package console

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
)

// TokenHeader is the request header that carries the console's token.
const TokenHeader = "X-Console-Token"

// hasToken reports whether r carries the console's token: in TokenHeader,
// or (for the event stream, which a browser opens without headers) in
// the query parameter token.
func (c *Console) hasToken(r *http.Request) bool {
	if c.cfg.Token == "" {
		return false
	}
	got := r.Header.Get(TokenHeader)
	if got == "" && r.URL.Path == "/api/events" {
		got = r.URL.Query().Get("token")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.cfg.Token)) == 1
}

// reader guards a read: it needs the token, unless ReadOpen allows it
// and the request reached a loopback address (the page itself, which
// holds no data, is always served).
func (c *Console) reader(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open := c.cfg.ReadOpen && reachedLoopback(r)
		if !open && r.URL.Path != "/" && !isAsset(r.URL.Path) && !c.hasToken(r) {
			writeError(w, http.StatusUnauthorized, "this console needs its token to be read: open the address it printed at start")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// session is what /api/session tells the page.
type session struct {
	CanAct bool   `json:"can_act"`
	Store  string `json:"store"`
}

func (c *Console) serveSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, session{CanAct: c.hasToken(r), Store: c.cfg.Where})
}

// secureHeaders sets the headers of every response: no framing, no
// sniffing, a content policy that runs only the console's own script.
func secureHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// writeJSON writes v as the JSON body of a response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is the body of a failed request.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}
