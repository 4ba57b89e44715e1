package console_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { natstest.Main(m) }

// TestLiveOnNATS: on the NATS store, a message that arrives is announced
// to an open page by the store's watch, and is in the state.
func TestLiveOnNATS(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	srv := natstest.Shared(t)
	opts := natsstore.Options{Conn: srv.Connect(t), OwnConn: true}
	natstest.NewNamespace().Apply(&opts)
	be, err := natsstore.Open(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { be.Close() })
	c, err := console.New(console.Config{Store: store.New(be, nil), Token: token, ReadOpen: true})
	require.NoError(t, err)
	go func() { _ = c.Run(ctx) }()
	web := httptest.NewServer(c.Handler())
	t.Cleanup(web.Close)

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, web.URL+"/api/events", nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	await := func(want string) {
		for lines.Scan() {
			if strings.Contains(lines.Text(), want) {
				return
			}
		}
		t.Fatalf("the event stream ended before %q: %v", want, lines.Err())
	}
	await("event: ready")
	msg := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "coder", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"lead"}, Timestamp: envelope.NewTime(time.Now()), Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("over NATS")}}}
	testkit.Closed(t, c.Watching(), "the store's watch")
	require.NoError(t, be.Deliver(ctx, msg))
	await(`data: "messages"`)
	st, err := c.State(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, st.Threads)
	assert.Equal(t, "over NATS", st.Threads[0].Messages[0].Text)
}
