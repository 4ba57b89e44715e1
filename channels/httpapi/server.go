package httpapi

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// routes is the channel's handler: /health open, the rest behind the
// bearer token.
func (c *Channel) routes() http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("POST /api/sessions/{session}/messages", c.postMessage)
	api.HandleFunc("GET /api/sessions/{session}/answers", c.getAnswers)
	api.HandleFunc("GET /api/sessions/{session}/events", c.streamAnswers)
	api.HandleFunc("GET /v1/models", c.listModels)
	api.HandleFunc("POST /v1/chat/completions", c.completions)
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+r.URL.Path+
			": see /api/sessions/{session}/messages, /api/sessions/{session}/answers, /v1/chat/completions, /v1/models")
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("/", c.authorize(api))
	return mux
}

// authorize lets through the requests that carry the bearer token (all
// of them when the channel has none).
func (c *Channel) authorize(next http.Handler) http.Handler {
	want := []byte(c.cfg.APIKey.Reveal())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(want) > 0 {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
				writeError(w, http.StatusUnauthorized, "authentication_error",
					"missing or wrong bearer token: send the header Authorization: Bearer <channels.http.apiKey>")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// apiError is the body of every error, in OpenAI's shape.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code,omitempty"`
	} `json:"error"`
}

// writeError answers status with an error of type typ saying msg.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	var e apiError
	e.Error.Message, e.Error.Type = msg, typ
	if status == http.StatusNotFound || status == http.StatusConflict {
		e.Error.Code = typ
	}
	writeJSON(w, status, e)
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// decodeBody decodes the request's JSON body into v, within the size
// limit; it answers the request itself and returns false when it cannot.
func (c *Channel) decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, c.cfg.MaxBodyBytes)).Decode(v)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error",
			"the body is over the limit of "+itoa(c.cfg.MaxBodyBytes)+" bytes (channels.http.maxBodyBytes)")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the body is not the JSON expected: "+err.Error())
		return false
	}
	return true
}
