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
