package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// world is the folder two in-process hosts share: one mailbox root, and a
// workspace and Feishu outbox per agent.
type world struct {
	t    *testing.T
	dir  string
	root string
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Mkdir(root, 0o700))
	require.NoError(t, os.Chmod(root, 0o700))
	return &world{t: t, dir: dir, root: root}
}

// config returns agent's configuration: the mailbox with the given extra
// keys, plus the Feishu stub when feishu is set.
func (w *world) config(agent string, feishu bool, mailboxKeys map[string]any) *config.Config {
	w.t.Helper()
	mb := map[string]any{"enabled": true, "agentId": agent, "mailboxesRoot": w.root}
	for k, v := range mailboxKeys {
		mb[k] = v
	}
	chans := map[string]any{"mailbox": mb}
	if feishu {
		chans[feishustub.TypeName] = map[string]any{"enabled": true, "listen": "127.0.0.1:0",
			"outbox": filepath.Join(w.dir, agent, "outbox.jsonl")}
	}
	doc := map[string]any{"channels": chans,
		"agents": map[string]any{"defaults": map[string]any{"workspace": filepath.Join(w.dir, agent, "workspace")}}}
	data, err := json.Marshal(doc)
	require.NoError(w.t, err)
	path := filepath.Join(w.dir, agent+".json")
	require.NoError(w.t, os.WriteFile(path, data, 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(w.t, err)
	return cfg
}

// start builds and starts a host; it is stopped when the test ends.
func (w *world) start(cfg *config.Config, opts host.Options) *host.Host {
	w.t.Helper()
	h, err := host.New(cfg, opts)
	require.NoError(w.t, err)
	require.NoError(w.t, h.Start(context.Background()))
	w.t.Cleanup(func() { _ = h.Stop() })
	return h
}

// messageSeq numbers the messages of every chat of the tests.
var messageSeq atomic.Int64

// chat is one Feishu conversation with a host's stub, over HTTP.
type chat struct {
	t       *testing.T
	webhook string
	id      string
	seen    int
}

func newChat(t *testing.T, h *host.Host, id string) *chat {
	t.Helper()
	url := webhookURL(h)
	require.NotEmpty(t, url, "the host runs the Feishu stub")
	return &chat{t: t, webhook: url, id: id}
}

// say posts a user's message to the webhook.
func (c *chat) say(text string) {
	c.t.Helper()
	// Feishu's message ids are unique: the channel remembers those it
	// answered, across restarts, and takes a repeat as a duplicate.
	n := messageSeq.Add(1)
	ev := feishustub.MessageEvent(fmt.Sprintf("ev_%s_%d", c.id, n), "ou_user", c.id, fmt.Sprintf("om_%d", n), text, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(c.t, feishustub.PostEvent(ctx, c.webhook, ev))
}

// await returns the next reply in the chat that contains want, failing
// the test after testkit.WaitLimit. Replies before it are skipped.
func (c *chat) await(want string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	var skipped []string
	for {
		replies, err := feishustub.NextReplies(ctx, c.webhook, c.id, c.seen, 5*time.Second)
		require.NoError(c.t, err, "waiting for %q in chat %s; skipped %q", want, c.id, skipped)
		for _, r := range replies {
			c.seen++
			if strings.Contains(r.Content, want) {
				return r.Content
			}
			skipped = append(skipped, r.Content)
		}
	}
}

// recorder is the scripted provider, recording its requests and holding
// back the work whose text contains hold until release is closed.
type recorder struct {
	scripted.Provider
	hold    string
	release chan struct{}

	mu   sync.Mutex
	reqs []agent.Request
}

func (r *recorder) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	if last := req.Messages[len(req.Messages)-1]; r.hold != "" && strings.Contains(last.Content, r.hold) {
		select {
		case <-r.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return r.Provider.Chat(ctx, req)
}

// requests returns the requests so far.
func (r *recorder) requests() []agent.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Request(nil), r.reqs...)
}

// convo renders a request's messages after the system prompt as
// "role: content" lines (tool calls as "role: -> name").
func convo(req agent.Request) []string {
	var out []string
	for _, m := range req.Messages[1:] {
		line := m.Role + ": " + m.Content
		for _, c := range m.ToolCalls {
			line += "-> " + c.Name
		}
		out = append(out, line)
	}
	return out
}

// webhookURL is the address of the host's Feishu stub ("" without one).
func webhookURL(h *host.Host) string {
	ch, ok := h.Channel(feishustub.ChannelName)
	if !ok {
		return ""
	}
	_, where := ch.(channels.Addresser).Address()
	return where
}

// aheadClock is the real clock read d ahead, for a process whose clock is
// not the others'.
type aheadClock struct {
	clock.Clock
	d time.Duration
}

func (c aheadClock) Now() time.Time { return c.Clock.Now().Add(c.d) }
