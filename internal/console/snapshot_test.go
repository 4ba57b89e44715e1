package console_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// pageState is what a page reads of /api/state.
type pageState struct {
	Now     time.Time `json:"now"`
	Threads []struct {
		Messages []struct {
			Text string `json:"text"`
		} `json:"messages"`
	} `json:"threads"`
}

func (p pageState) texts() []string {
	var out []string
	for _, t := range p.Threads {
		for _, m := range t.Messages {
			out = append(out, m.Text)
		}
	}
	return out
}

func readState(t *testing.T, url string) pageState {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodGet, url+"/api/state", nil)
	require.NoError(t, err)
	req.Header.Set(console.TokenHeader, token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(data))
	var st pageState
	require.NoError(t, json.Unmarshal(data, &st))
	return st
}

// TestAPageWaitsForTheNextBuildUnlessTheOperatorActs: while messages
// arrive, a page asking for the state waits for the next build (at most
// one per MinRefresh: here an hour); the operator's action ends the
// wait, and the state then holds what arrived meanwhile and what the
// operator sent.
func TestAPageWaitsForTheNextBuildUnlessTheOperatorActs(t *testing.T) {
	t.Parallel()
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	c, err := console.New(console.Config{Store: be, Token: token, MinRefresh: time.Hour})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	ctx := testkit.Ctx(t)

	first := readState(t, srv.URL)
	assert.Empty(t, first.texts())
	for _, text := range []string{"one", "two", "three"} {
		require.NoError(t, be.Deliver(ctx, &envelope.Message{ID: envelope.NewID(), From: "lead", To: "coder", Type: envelope.TypeMessage,
			TTL: 2, Timestamp: envelope.NewTime(time.Now()), Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}))
	}
	got := make(chan pageState, 1)
	go func() { got <- readState(t, srv.URL) }() // it waits: the last build is younger than an hour
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", `{"to":"coder","text":"from the operator"}`, nil))
	select {
	case st := <-got:
		assert.ElementsMatch(t, []string{"one", "two", "three", "from the operator"}, st.texts())
		assert.True(t, st.Now.After(first.Now))
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the page still waits after the operator acted")
	}
}

// TestTheFolderStoreIsReadIncrementally: on the folder store a state
// shows what arrived and where each message is now (a message handled
// since the last read is in processed/), whether its file was read
// before or not.
func TestTheFolderStoreIsReadIncrementally(t *testing.T) {
	t.Parallel()
	be := bigStore(t, 8)
	c, err := console.New(console.Config{Store: be, Token: token})
	require.NoError(t, err)
	ctx := testkit.Ctx(t)
	st, err := c.State(ctx)
	require.NoError(t, err)
	assert.Equal(t, 8, count(st))

	m := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "coder", Type: envelope.TypeMessage, TTL: 2,
		Timestamp: envelope.NewTime(time.Now()), Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("new")}}}
	require.NoError(t, be.Deliver(ctx, m))
	st, err = c.State(ctx)
	require.NoError(t, err)
	assert.Equal(t, 9, count(st))
	assert.Equal(t, store.BoxInbox, boxOf(st, m.ID))

	in, err := be.OpenInbox(ctx, "coder")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	require.NoError(t, in.Ack(ctx, d))
	st, err = c.State(ctx)
	require.NoError(t, err)
	assert.Equal(t, 9, count(st))
	assert.Equal(t, store.BoxProcessed, boxOf(st, m.ID), "moved since the last read")
}

func count(st *console.State) int {
	n := 0
	for _, t := range st.Threads {
		n += len(t.Messages)
	}
	return n
}

func boxOf(st *console.State, id string) store.Box {
	for _, t := range st.Threads {
		for _, m := range t.Messages {
			if m.ID == id {
				return m.Box
			}
		}
	}
	return ""
}
