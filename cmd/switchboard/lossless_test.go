package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// model is an OpenAI-compatible server that answers "done m-N" to the
// message "m-N", counting what it saw and what it answered. While
// blocking, it answers the first answerFirst requests and then holds every
// request until the client goes away.
type model struct {
	mu          sync.Mutex
	blocking    bool
	answerFirst int
	seen        map[string]int // requests per message
	answered    map[string]int // answers per message
	requests    *testkit.Log[string]
}

var modelMsg = regexp.MustCompile(`m-\d+`)

func newModel(answerFirst int) *model {
	return &model{blocking: true, answerFirst: answerFirst, seen: map[string]int{}, answered: map[string]int{},
		requests: testkit.NewLog[string]()}
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &body)
	last := body.Messages[len(body.Messages)-1].Content
	id := modelMsg.FindString(last)
	m.mu.Lock()
	m.seen[id]++
	hold := m.blocking && len(m.answered) >= m.answerFirst
	if !hold {
		m.answered[id]++
	}
	m.mu.Unlock()
	m.requests.Add(id)
	if hold {
		<-r.Context().Done() // until the host is killed or gives up the turn
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m",
		"choices":[{"index":0,"message":{"role":"assistant","content":"done %s"},"finish_reason":"stop"}]}`, id)
}

func (m *model) unblock() {
	m.mu.Lock()
	m.blocking = false
	m.mu.Unlock()
}

func (m *model) counts() (seen, answered map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return clone(m.seen), clone(m.answered)
}

func clone(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestHostLosesNothingWhenKilled: 40 messages wait for an agent whose
// model answers 10 and then hangs; the host is killed (SIGKILL) or stopped
// (SIGTERM, past its stop timeout) in the middle; restarted, it answers
// the rest. Every message is answered exactly once, and nothing is lost.
func TestHostLosesNothingWhenKilled(t *testing.T) {
	for _, tt := range []struct {
		name string
		sig  string
	}{{"SIGKILL", "kill"}, {"SIGTERM", "term"}} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			llm := newModel(10)
			srv := httptest.NewServer(llm)
			defer srv.Close()
			conf := s.writeConfig("worker.json", `{"agents": {"defaults": {"provider": "openai"}},
				"providers": {"openai": {"apiKey": "k", "apiBase": "`+srv.URL+`/v1", "model": "m", "maxRetries": 0}},
				"channels": {"mailbox": {"enabled": true, "agentId": "worker", "fsync": true,
					"limits": {"perSender": {"rate": 0}}}}}`) // 40 at once from boss: no rate limit here
			st, err := fsstore.Open(fsstore.Options{Root: s.root})
			require.NoError(t, err)
			defer st.Close()
			ids := map[string]string{} // message id → text
			for i := 1; i <= 40; i++ {
				m := &envelope.Message{ID: envelope.NewID(), From: "boss", To: "worker", Type: envelope.TypeMessage,
					Timestamp: envelope.NewTime(time.Now()), TTL: 3, Trace: []string{"boss"}}
				m.Content.Parts = []envelope.Part{envelope.TextPart(fmt.Sprintf("m-%d", i))}
				require.NoError(t, st.Deliver(context.Background(), m))
				ids[m.ID] = fmt.Sprintf("m-%d", i)
			}

			host := s.start("--config", conf, "run", "--stop-timeout", "1")
			host.awaitStderr("host running")
			llm.requests.WaitCount(t, "model requests", 11, nil) // 10 answered, the 11th hangs
			if tt.sig == "kill" {
				require.NoError(t, host.cmd.Process.Kill())
				host.wait()
			} else {
				host.signal(sigterm)
				assert.Equal(t, 1, host.wait(), "a stop with work unfinished says so")
				assert.Contains(t, host.stderrSoFar(), "not answered within 1s; they stay with their channels")
			}

			llm.unblock()
			again := s.start("--config", conf, "run")
			defer func() { again.signal(sigterm); again.wait() }()
			replies := map[string]int{} // answers boss got, by the message they answer
			inbox, err := st.OpenInbox(testkit.Ctx(t), "boss")
			require.NoError(t, err)
			defer inbox.Close()
			for len(replies) < 40 {
				d, err := inbox.Next(testkit.Ctx(t))
				require.NoError(t, err, "replies so far: %d", len(replies))
				replies[d.Message.ReplyTo]++
				require.NoError(t, inbox.Ack(testkit.Ctx(t), d))
			}
			sentinel := &envelope.Message{ID: envelope.NewID(), From: "boss", To: "worker", Type: envelope.TypeMessage,
				Timestamp: envelope.NewTime(time.Now()), TTL: 3, Trace: []string{"boss"}}
			sentinel.Content.Parts = []envelope.Part{envelope.TextPart("m-41")}
			require.NoError(t, st.Deliver(context.Background(), sentinel))
			d, err := inbox.Next(testkit.Ctx(t))
			require.NoError(t, err)
			assert.Equal(t, sentinel.ID, d.Message.ReplyTo, "no second answer came before the last one")
			delete(ids, "")
			require.Len(t, replies, 40, "every message answered")
			for id, n := range replies {
				assert.Equal(t, 1, n, "replies to %s (%s)", id, ids[id])
			}
			_, answered := llm.counts()
			assert.Len(t, answered, 41)
			for text, n := range answered {
				assert.Equal(t, 1, n, "the model answered %s once", text)
			}
		})
	}
}

// TestFeishuMessageTakenSurvivesAStop: a Feishu message the stub answered
// 200 is journaled; the host is stopped mid-turn (SIGTERM past its stop
// timeout) and, once restarted, answers it in the user's chat, once.
func TestFeishuMessageTakenSurvivesAStop(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	llm := newModel(0) // holds every request until unblocked
	srv := httptest.NewServer(llm)
	defer srv.Close()
	conf := s.writeConfig("bot.json", `{"agents": {"defaults": {"provider": "openai", "workspace": "`+s.home+`/ws"}},
		"providers": {"openai": {"apiKey": "k", "apiBase": "`+srv.URL+`/v1", "model": "m", "maxRetries": 0}},
		"channels": {"feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "`+s.home+`/outbox.jsonl"}}}`)

	host := s.start("--config", conf, "run", "--stop-timeout", "1")
	m := webhookAttr.FindStringSubmatch(host.awaitLine("host running"))
	require.NotNil(t, m)
	ev := feishustub.MessageEvent("ev_1", "ou_ada", "oc_ada", "om_1", "m-1", time.Now())
	require.NoError(t, feishustub.PostEvent(testkit.Ctx(t), m[1], ev))
	llm.requests.WaitCount(t, "the model asked", 1, nil)
	host.signal(sigterm)
	assert.Equal(t, 1, host.wait(), "stopped with a message unanswered")

	llm.unblock()
	again := s.start("--config", conf, "run")
	defer func() { again.signal(sigterm); again.wait() }()
	m = webhookAttr.FindStringSubmatch(again.awaitLine("host running"))
	require.NotNil(t, m)
	replies, err := feishustub.NextReplies(testkit.Ctx(t), m[1], "oc_ada", 0, 10*time.Second)
	require.NoError(t, err)
	require.NotEmpty(t, replies, "the message taken before the stop is answered after it")
	assert.Equal(t, "done m-1", replies[0].Content)
	require.NoError(t, feishustub.PostEvent(testkit.Ctx(t), m[1], feishustub.MessageEvent("ev_2", "ou_ada", "oc_ada", "om_2", "m-2", time.Now())))
	more, err := feishustub.NextReplies(testkit.Ctx(t), m[1], "oc_ada", len(replies), 10*time.Second)
	require.NoError(t, err)
	require.NotEmpty(t, more)
	assert.Equal(t, "done m-2", more[0].Content, "m-1 was answered once")
	_, answered := llm.counts()
	assert.Equal(t, map[string]int{"m-1": 1, "m-2": 1}, answered)
}
