package otlpcollector

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Limits of a Collector.
const (
	// MaxBody is the largest export body taken (after gzip), in bytes.
	MaxBody = 16 << 20
	// DefaultMaxSpans is how many spans a Collector keeps by default; the
	// spans sent past it are counted (Dropped) and not kept.
	DefaultMaxSpans = 100_000
	// TracesPath is the path exports are POSTed to.
	TracesPath = "/v1/traces"
)

// Collector receives spans over OTLP/HTTP and keeps them. Its zero value
// is not usable: make one with New or Listen.
type Collector struct {
	maxSpans int

	mu      sync.Mutex
	spans   []Span
	dropped int
	changed chan struct{} // closed and replaced at every export that kept a span

	srv *http.Server
	ln  net.Listener
}

// New returns a collector that keeps up to maxSpans spans (0:
// DefaultMaxSpans), to serve with Handler.
func New(maxSpans int) *Collector {
	if maxSpans <= 0 {
		maxSpans = DefaultMaxSpans
	}
	return &Collector{maxSpans: maxSpans, changed: make(chan struct{})}
}

// Listen starts a collector serving on addr ("127.0.0.1:0" for a free
// port of the loopback address); Close stops it.
func Listen(addr string) (*Collector, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("trace receiver: %w", err)
	}
	c := New(0)
	c.ln = ln
	c.srv = &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

// Endpoint is the base URL of a collector started by Listen, what
// OTEL_EXPORTER_OTLP_ENDPOINT or observability.tracing.endpoint take
// ("http://127.0.0.1:PORT"); spans go to Endpoint()+TracesPath.
func (c *Collector) Endpoint() string {
	if c.ln == nil {
		return ""
	}
	return "http://" + c.ln.Addr().String()
}

// Close stops a collector started by Listen. The spans it kept stay.
func (c *Collector) Close() error {
	if c.srv == nil {
		return nil
	}
	return c.srv.Close()
}

// Spans returns the spans received so far, in the order they came.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// Dropped returns how many spans were received past the limit and not kept.
func (c *Collector) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Await waits until done holds for the spans received so far, checking
// at every export, or until ctx ends (then it returns ctx's cause).
func (c *Collector) Await(ctx context.Context, done func([]Span) bool) error {
	for {
		c.mu.Lock()
		ok, changed := done(c.spans), c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Handler returns the HTTP handler of the OTLP/HTTP traces endpoint.
func (c *Collector) Handler() http.Handler { return http.HandlerFunc(c.serve) }

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != TracesPath {
		http.Error(w, "this receiver takes spans at POST "+TracesPath, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "want POST", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-protobuf" {
		http.Error(w, fmt.Sprintf("Content-Type %q: this receiver takes application/x-protobuf (OTLP http/protobuf)",
			r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	data, status, err := decode(r)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	c.add(spansOf(data))
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK) // an empty ExportTraceServiceResponse: all taken
}

// decode reads an export's body, gunzipped when it says so.
func decode(r *http.Request) (*tracepb.TracesData, int, error) {
	body := io.Reader(http.MaxBytesReader(nil, r.Body, MaxBody))
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("gzip body: %w", err)
		}
		defer zr.Close()
		body = io.LimitReader(zr, MaxBody+1)
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("Content-Encoding %q: want gzip or none", enc)
	}
	raw, err := io.ReadAll(body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig) || len(raw) > MaxBody:
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("export larger than %d bytes", MaxBody)
	case err != nil:
		return nil, http.StatusBadRequest, fmt.Errorf("read the export: %w", err)
	}
	var data tracepb.TracesData
	if err := proto.Unmarshal(raw, &data); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("not an OTLP traces export: %w", err)
	}
	return &data, 0, nil
}

// add keeps spans, up to the limit.
func (c *Collector) add(spans []Span) {
	if len(spans) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	room := max(0, c.maxSpans-len(c.spans))
	if len(spans) > room {
		c.dropped += len(spans) - room
		spans = spans[:room]
	}
	if len(spans) == 0 {
		return
	}
	c.spans = append(c.spans, spans...)
	close(c.changed)
	c.changed = make(chan struct{})
}
