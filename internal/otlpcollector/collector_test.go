package otlpcollector_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/otlpcollector"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/tracing"
	"github.com/switchboard-dev/switchboard/tracing/otlp"
)

// TestExport sends spans with switchboard's own exporter to a collector on
// 127.0.0.1 and finds them, with their resource, parents and status.
func TestExport(t *testing.T) {
	col, err := otlpcollector.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = col.Close() })
	ctx := testkit.Ctx(t)
	shutdown, where, err := otlp.Start(ctx, config.TracingConfig{Enabled: true, Endpoint: col.Endpoint()},
		otlp.Options{Attributes: []attribute.KeyValue{attribute.String("gen_ai.agent.name", "coder")}})
	require.NoError(t, err)
	assert.Equal(t, col.Endpoint()+otlpcollector.TracesPath, where)

	rctx, root := tracing.StartReceive(ctx, tracing.Message{System: "feishu", Destination: "oc_1"})
	_, child := tracing.Tracer().Start(rctx, "invoke_agent coder", trace.WithAttributes(
		attribute.Int64("gen_ai.usage.input_tokens", 12), attribute.StringSlice("gen_ai.response.finish_reasons", []string{"stop"})))
	child.SetStatus(codes.Error, "model\nunreachable")
	child.End()
	root.End()
	require.NoError(t, shutdown(ctx)) // flushes
	spans := col.Spans()
	require.Len(t, spans, 2)
	traces := otlpcollector.Traces(spans)
	require.Len(t, traces, 1)
	tr := traces[0]
	assert.Equal(t, root.SpanContext().TraceID().String(), tr.ID)
	r, c := tr.Spans[0], tr.Spans[1]
	assert.Equal(t, "receive oc_1", r.Name)
	assert.Equal(t, "consumer", r.Kind)
	assert.Empty(t, r.ParentID)
	assert.Equal(t, r.SpanID, c.ParentID)
	assert.Equal(t, "coder", c.Agent)
	assert.Equal(t, "switchboard", c.Service)
	assert.Equal(t, "12", c.Attrs["gen_ai.usage.input_tokens"])
	assert.Equal(t, "[stop]", c.Attrs["gen_ai.response.finish_reasons"])
	assert.Equal(t, "model\nunreachable", c.Error)
	assert.False(t, c.Start.Before(r.Start))
	assert.Equal(t, []string{"coder"}, tr.Agents())
	assert.Equal(t, []otlpcollector.Span{c, r}, tr.Ancestry(c))
	out := tr.String()
	assert.Contains(t, out, "trace "+tr.ID+"  (2 spans; coder; ")
	assert.Regexp(t, `\n +0\.000s +\S+ms  receive oc_1 +coder\n`, out)
	assert.Regexp(t, `\n +\d\.\d{3}s +\S+ms    invoke_agent coder +coder  error: model unreachable\n`, out)
}

// export is an ExportTraceServiceRequest (as TracesData) of spans made by
// agent.
func export(t *testing.T, agent string, spans ...*tracepb.Span) []byte {
	t.Helper()
	data, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "gen_ai.agent.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: agent}}}}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans}},
	}}})
	require.NoError(t, err)
	return data
}

var t0 = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

func span(trace byte, id, parent byte, name string, start, end time.Duration) *tracepb.Span {
	s := &tracepb.Span{TraceId: bytes.Repeat([]byte{trace}, 16), SpanId: bytes.Repeat([]byte{id}, 8), Name: name,
		StartTimeUnixNano: uint64(t0.Add(start).UnixNano()), EndTimeUnixNano: uint64(t0.Add(end).UnixNano())}
	if parent != 0 {
		s.ParentSpanId = bytes.Repeat([]byte{parent}, 8)
	}
	return s
}

func post(h http.Handler, path, contentType, encoding string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestRender draws spans of two processes, sent out of order, as one
// tree, children by start time, with a span whose parent never came.
func TestRender(t *testing.T) {
	t.Parallel()
	col := otlpcollector.New(0)
	h := col.Handler()
	ms := time.Millisecond
	require.Equal(t, http.StatusOK, post(h, otlpcollector.TracesPath, "application/x-protobuf", "", export(t, "coder",
		span(1, 4, 3, "receive coder", 30*ms, 95*ms), span(1, 5, 4, "invoke_agent coder", 40*ms, 90*ms))).Code)
	require.Equal(t, http.StatusOK, post(h, otlpcollector.TracesPath, "application/x-protobuf", "", export(t, "researcher",
		span(1, 3, 2, "send coder", 20*ms, 25*ms), span(1, 2, 1, "invoke_agent researcher", 5*ms, 1500*ms),
		span(1, 6, 2, "chat", 6*ms, 8*ms), span(1, 1, 0, "receive oc_demo_chat", 0, 1600*ms),
		span(1, 7, 9, "send oc_demo_chat", 1550*ms, 1551*ms), span(2, 8, 0, "receive researcher", 2*time.Second, 3*time.Second))).Code)
	traces := otlpcollector.Traces(col.Spans())
	require.Len(t, traces, 2)
	assert.Equal(t, strings.Repeat("02", 16), traces[1].ID)
	assert.Equal(t, "trace "+strings.Repeat("01", 16)+"  (7 spans; researcher, coder; 1.600s)\n"+
		`     start      took  span                        process
    0.000s    1.600s  receive oc_demo_chat        researcher
    0.005s    1.495s    invoke_agent researcher   researcher
    0.006s    2.00ms      chat                    researcher
    0.020s    5.00ms      send coder              researcher
    0.030s    65.0ms        receive coder         coder
    0.040s    50.0ms          invoke_agent coder  coder
    1.550s    1.00ms  send oc_demo_chat           researcher  (parent 0909090909090909 not received)
`, traces[0].String())
}

// TestRefused answers what is not an OTLP/HTTP protobuf export with the
// matching status, and keeps nothing of it.
func TestRefused(t *testing.T) {
	t.Parallel()
	col := otlpcollector.New(0)
	h := col.Handler()
	good := export(t, "a", span(1, 1, 0, "x", 0, 1))
	for _, tt := range []struct {
		name, path, ctype, enc string
		body                   []byte
		status                 int
	}{
		{"path", "/v1/metrics", "application/x-protobuf", "", good, http.StatusNotFound},
		{"json", otlpcollector.TracesPath, "application/json", "", []byte("{}"), http.StatusUnsupportedMediaType},
		{"encoding", otlpcollector.TracesPath, "application/x-protobuf", "br", good, http.StatusUnsupportedMediaType},
		{"not gzip", otlpcollector.TracesPath, "application/x-protobuf", "gzip", good, http.StatusBadRequest},
		{"not protobuf", otlpcollector.TracesPath, "application/x-protobuf", "", []byte{0xff, 0xff, 0xff}, http.StatusBadRequest},
		{"too big", otlpcollector.TracesPath, "application/x-protobuf", "", make([]byte, otlpcollector.MaxBody+1), http.StatusRequestEntityTooLarge},
	} {
		w := post(h, tt.path, tt.ctype, tt.enc, tt.body)
		assert.Equal(t, tt.status, w.Code, "%s: %s", tt.name, w.Body)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, otlpcollector.TracesPath, nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Empty(t, col.Spans())

	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(good)
	require.NoError(t, zw.Close())
	assert.Equal(t, http.StatusOK, post(h, otlpcollector.TracesPath, "application/x-protobuf", "gzip", zipped.Bytes()).Code)
	assert.Len(t, col.Spans(), 1)
}

// TestLimitAndAwait keeps spans up to its limit, counts the others, and
// wakes Await at each export.
func TestLimitAndAwait(t *testing.T) {
	t.Parallel()
	col := otlpcollector.New(3)
	h := col.Handler()
	got := make(chan error, 1)
	go func() {
		got <- col.Await(testkit.Ctx(t), func(s []otlpcollector.Span) bool { return len(s) >= 3 })
	}()
	post(h, otlpcollector.TracesPath, "application/x-protobuf", "", export(t, "a", span(1, 1, 0, "x", 0, 1), span(1, 2, 1, "y", 0, 1)))
	post(h, otlpcollector.TracesPath, "application/x-protobuf", "", export(t, "a", span(1, 3, 1, "z", 0, 1), span(1, 4, 1, "w", 0, 1)))
	require.NoError(t, testkit.Recv(t, got, "Await"))
	assert.Len(t, col.Spans(), 3)
	assert.Equal(t, 1, col.Dropped())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, col.Await(ctx, func([]otlpcollector.Span) bool { return false }), context.Canceled)
}
