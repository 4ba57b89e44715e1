package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/httpapi"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// harness is an HTTP channel run by a Manager on a free port, with a
// scripted agent on the bus: it answers "echo: <text>", fails "fail",
// holds "hold" (never answers) and, for "delegate", plays a turn that
// delegates task t1 to coder through the channel's hook, then the
// task's final update coming back.
type harness struct {
	t     *testing.T
	bus   *bus.Bus
	ch    *httpapi.Channel
	url   string
	logs  *testkit.Buffer
	taken *testkit.Log[bus.InboundMessage]
	// finish, when delegate was said, lets the task's final update come.
	finish chan struct{}
}

// testConfig listens on a free loopback port with the journal and the
// answers in dir.
func testConfig(dir string) httpapi.Config {
	cfg := httpapi.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Journal = filepath.Join(dir, "http-journal.jsonl")
	cfg.Answers = filepath.Join(dir, "http-answers.jsonl")
	return cfg
}

func newHarness(t *testing.T, edit func(*httpapi.Config)) *harness {
	t.Helper()
	cfg := testConfig(t.TempDir())
	if edit != nil {
		edit(&cfg)
	}
	h := &harness{t: t, bus: bus.New(16), logs: &testkit.Buffer{}, taken: testkit.NewLog[bus.InboundMessage](),
		finish: make(chan struct{})}
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := httpapi.New(cfg, channels.Deps{Bus: h.bus, Logger: logger})
	require.NoError(t, err)
	h.ch = ch
	m := channels.NewManager(h.bus, channels.ManagerConfig{Logger: logger})
	require.NoError(t, m.Add(ch))
	require.NoError(t, m.Start(testkit.Ctx(t)))
	_, h.url = ch.Address()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.agent(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		stop, cancelStop := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancelStop()
		h.bus.Close()
		require.NoError(t, m.Stop(stop))
		if t.Failed() {
			t.Logf("channel logs:\n%s", h.logs)
		}
	})
	return h
}

// agent answers what the channel takes in, as the agent loop would.
func (h *harness) agent(ctx context.Context) {
	hook := h.ch.Hooks()[0]
	for {
		in, err := h.bus.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		h.taken.Add(in)
		switch in.Content {
		case "hold":
			continue
		case "fail":
			h.answer(ctx, in, "I could not reach the model; try again in a minute.", "the model could not be reached")
		case "delegate":
			turn := agent.NewTurn(in)
			_, end := hook.Turn(ctx, turn)
			_, toolEnd := hook.Tool(ctx, turn, agent.ToolCall{Name: "delegate_task"})
			toolEnd("delegated task t1 to coder; its updates will come back to this conversation", false)
			_, chatEnd, _ := hook.Chat(ctx, turn, &agent.Request{})
			chatEnd(&agent.Response{Content: "I asked coder."}, nil)
			end(nil, agent.Usage{})
			h.answer(ctx, in, "I asked coder.", "")
			go h.update(ctx, in, hook)
		default:
			h.answer(ctx, in, "echo: "+in.Content, "")
		}
	}
}

// update is the final update of task t1 coming back to in's chat, once
// the test says so, and the agent's answer to it.
func (h *harness) update(ctx context.Context, in bus.InboundMessage, hook agent.Hook) {
	select {
	case <-h.finish:
	case <-ctx.Done():
		return
	}
	up := bus.InboundMessage{Channel: in.Channel, ChatID: in.ChatID, SenderID: "coder",
		Note: &bus.Note{Type: bus.NoteTaskUpdate, From: "coder", TaskID: "t1", State: "completed", Text: "1 2 3"}}
	turn := agent.NewTurn(up)
	_, end := hook.Turn(ctx, turn)
	_, chatEnd, _ := hook.Chat(ctx, turn, &agent.Request{})
	chatEnd(&agent.Response{Content: "coder finished: 1 2 3"}, nil)
	end(nil, agent.Usage{})
	h.answer(ctx, up, "coder finished: 1 2 3", "")
}

// answer publishes the answer to in and finishes in once it is sent.
func (h *harness) answer(ctx context.Context, in bus.InboundMessage, text, failure string) {
	_ = h.bus.PublishOutbound(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID, Content: text,
		Metadata: maps.Clone(in.Metadata), Failure: failure,
		Sent: func(err error) {
			if err == nil {
				in.Done()
			}
		}})
}

// do sends a request to the channel and returns the status and the body.
func (h *harness) do(method, path, body string, header ...string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequestWithContext(testkit.Ctx(h.t), method, h.url+path, strings.NewReader(body))
	require.NoError(h.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return resp.StatusCode, string(data)
}

// answers is the body of GET .../answers.
type answers struct {
	Answers []struct {
		Seq     int64  `json:"seq"`
		ReplyTo string `json:"reply_to"`
		Text    string `json:"text"`
	} `json:"answers"`
	Next      int64             `json:"next"`
	Settled   bool              `json:"settled"`
	OpenTasks []json.RawMessage `json:"open_tasks"`
}

// poll long-polls the session's answers after seq.
func (h *harness) poll(session string, after int64) answers {
	h.t.Helper()
	code, body := h.do("GET", "/api/sessions/"+session+"/answers?wait=15&after="+itoa(after), "")
	require.Equal(h.t, http.StatusOK, code, body)
	var a answers
	require.NoError(h.t, json.Unmarshal([]byte(body), &a))
	return a
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
