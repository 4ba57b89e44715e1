package anthropic

import (
	"fmt"
	"net/http"
	"strings"
)

// maxErrorBody caps how much of an error body is quoted.
const maxErrorBody = 512

// StatusError is a request the server refused, after any retries.
type StatusError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is the server's explanation ("error.message" of the body,
	// or the start of any other body).
	Message string
	// Type is the "error.type" when given ("overloaded_error").
	Type string

	err error
}

// Error reads "anthropic provider: server answered 529: <message>".
func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	status := http.StatusText(e.StatusCode)
	if status != "" {
		status = " " + status
	}
	return fmt.Sprintf("anthropic provider: server answered %d%s: %s", e.StatusCode, status, msg)
}

// Unwrap returns the SDK's error.
func (e *StatusError) Unwrap() error { return e.err }

// clipBody returns the start of a body, trimmed.
func clipBody(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxErrorBody {
		s = s[:maxErrorBody]
	}
	return s
}
