package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // the config names the backend "fs"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A refresh that finds a new card puts its skills and description on the
// mailbox card and keeps it; one that cannot fetch it keeps the last.
func TestRefreshShowsTheNewCard(t *testing.T) {
	t.Parallel()
	var card atomic.Pointer[a2a.AgentCard]
	skill := func(ids ...string) []a2a.AgentSkill {
		var out []a2a.AgentSkill
		for _, id := range ids {
			out = append(out, a2a.AgentSkill{ID: id, Name: id, Tags: []string{}})
		}
		return out
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(card.Load())
	}))
	defer srv.Close()
	card.Store(&a2a.AgentCard{Name: "echo", Description: "first", Skills: skill("echoing"),
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL+"/rpc", a2a.TransportProtocolJSONRPC)}})

	ctx := testkit.Ctx(t)
	st := store.New(memstore.New(memstore.Options{}), nil)
	mc := mailbox.DefaultConfig()
	mc.AgentID, mc.Enabled = "echo", true
	p, err := New(Config{Name: "echo", URL: srv.URL, Refresh: time.Hour}, Options{Mailbox: mc, Store: st})
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	defer func() { require.NoError(t, p.Stop(context.Background())) }()
	c, err := st.Card(ctx, "echo")
	require.NoError(t, err)
	assert.Equal(t, []string{"echoing"}, c.Capabilities)

	next := *card.Load()
	next.Description, next.Skills = "second", skill("echoing", "shouting")
	card.Store(&next)
	p.refresh(ctx)
	c, err = st.Card(ctx, "echo")
	require.NoError(t, err)
	assert.Equal(t, []string{"echoing", "shouting"}, c.Capabilities)
	assert.Equal(t, "second (A2A agent at "+srv.URL+")", c.Description)
	assert.Equal(t, "second", p.cachedCard(ctx).Description, "kept for the next start")

	srv.Close()
	p.refresh(ctx)
	_, got := p.current()
	assert.Equal(t, "second", got.Description, "the last card stays")
}
