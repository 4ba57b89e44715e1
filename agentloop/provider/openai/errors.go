package openai

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxErrorBody caps how much of an error body is quoted.
const maxErrorBody = 512

// StatusError is a request the server refused, after any retries.
type StatusError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is the server's explanation: the "error.message" of an
	// OpenAI-style body, or the start of any other body.
	Message string
	// Type and Code are the "error.type" and "error.code" when given.
	Type, Code string

	err error
}

func newStatusError(status int, msg, typ, code string, resp *http.Response, err error) *StatusError {
	if msg == "" && resp != nil && resp.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg = strings.TrimSpace(string(body))
	}
	return &StatusError{StatusCode: status, Message: msg, Type: typ, Code: code, err: err}
}

// Error reads "openai provider: server answered 400 Bad Request: <message>".
func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	return fmt.Sprintf("openai provider: server answered %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), msg)
}

// Unwrap returns the library's error.
func (e *StatusError) Unwrap() error { return e.err }
