package tracing_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/tracing"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestPropagation(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", tracing.TraceID(parent))
	for _, bad := range []string{"", "00-zz-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"} {
		assert.Empty(t, tracing.TraceID(bad), "%q", bad)
	}
	ctx := tracing.WithParent(context.Background(), parent, "a=1")
	tp, ts := tracing.Parent(ctx)
	assert.Equal(t, parent, tp, "the remote parent travels on as it came")
	assert.Equal(t, "a=1", ts)
	assert.Nil(t, tracing.Inject(context.Background()), "no span, no carrier")
	assert.Equal(t, context.Background(), tracing.Extract(context.Background(), nil))
}

func TestLogAttrs(t *testing.T) {
	t.Parallel()
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	tc := map[string]string{"traceparent": parent, "tracestate": "k=v"}
	assert.Equal(t, []any{"id", "m-2", "thread", "t-1", "trace", trace}, tracing.LogAttrs("m-2", "t-1", tc))
	assert.Equal(t, []any{"id", "m-2", "thread", "t-1"}, tracing.LogAttrs("m-2", "t-1", nil), "no trace context, no trace")
	assert.Equal(t, []any{"id", "ev-9", "trace", trace}, tracing.LogAttrs("ev-9", "", tc), "no thread outside a threaded channel")
	assert.Equal(t, []any{"id", "ev-9"}, tracing.LogAttrs("ev-9", "", map[string]string{"traceparent": "junk"}), "a malformed traceparent is left out")
	assert.Empty(t, tracing.LogAttrs("", "", nil))
}
