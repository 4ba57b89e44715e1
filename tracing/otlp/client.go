package otlp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// client is an otlptrace.Client that POSTs ExportTraceServiceRequests to
// an OTLP/HTTP endpoint. A TracesData message is wire-compatible with
// ExportTraceServiceRequest (both are `repeated ResourceSpans = 1`), so
// the collector's gRPC service package is not needed to build one.
type client struct {
	url     string
	headers map[string]string
	timeout time.Duration
	http    *http.Client
	clock   clock.Clock // times the waits between retries (nil: the real clock)
}

var _ otlptrace.Client = (*client)(nil)

// retries is how many times an upload refused as temporary (429, 502,
// 503, 504) or cut by a network error is tried again, after up to 0.5 s
// and 1 s (exportRetry).
const retries = 2

// exportRetry spaces the retries of an upload.
var exportRetry = backoff.Policy{Initial: 500 * time.Millisecond, Max: time.Second}

// Start implements otlptrace.Client.
func (c *client) Start(context.Context) error { return nil }

// Stop implements otlptrace.Client.
func (c *client) Stop(context.Context) error {
	c.http.CloseIdleConnections()
	return nil
}

// UploadTraces implements otlptrace.Client.
func (c *client) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: spans})
	if err != nil {
		return fmt.Errorf("otlp: encode spans: %w", err)
	}
	waits := exportRetry.Start()
	for attempt := 0; ; attempt++ {
		retry, err := c.post(ctx, body)
		if err == nil || !retry || attempt == retries {
			return err
		}
		if werr := backoff.Sleep(ctx, c.clock, waits.Next()); werr != nil {
			return errors.Join(err, werr)
		}
	}
}

// post sends one request; retry tells whether a failure is temporary.
func (c *client) post(ctx context.Context, body []byte) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("otlp: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return ctx.Err() == nil, fmt.Errorf("otlp: export spans to %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		retry = true
	}
	return retry, fmt.Errorf("otlp: export spans to %s: %s: %s", c.url, resp.Status, bytes.TrimSpace(msg))
}
