package main_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// a2aCLI builds the SDK's own command line client, `a2a`, once.
var a2aCLI = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "a2a-cli-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "a2a")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/a2aproject/a2a-go/v2/cmd/a2a").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build the a2a command: %v: %s", err, out)
	}
	return bin, nil
})

// a2a runs the SDK's `a2a` command with args and returns its output.
func runA2A(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := a2aCLI()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	require.NoError(t, err, "a2a %v: %s", args, out)
	return string(out)
}

// coderA2AConfig is coder of the demo, whose sorting and counting wait
// for a person's approval when approve is set.
func coderA2AConfig(approve bool) string {
	approval := ""
	if approve {
		approval = `, "approval": {"tasks": ["sort", "count"], "timeout": 600}`
	}
	return `{
  "agents": {"defaults": {"workspace": "~/.nanobot/coder"` + approval + `}},
  "channels": {
    "mailbox": {"enabled": true, "agentId": "coder", "capabilities": ["sorting", "counting", "arithmetic"],
                "description": "sorts, counts words and does arithmetic"}
  }
}`
}

var servingAt = regexp.MustCompile(`serving A2A: (\S+) at (\S+)`)

// startGateway starts `switchboard a2a serve` with args and returns it
// and the base URL of the first agent it serves.
func (s *sandbox) startGateway(args ...string) (*proc, string) {
	s.t.Helper()
	g := s.start(append([]string{"a2a", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	m := servingAt.FindStringSubmatch(g.awaitLine("serving A2A:"))
	require.NotNil(s.t, m)
	return g, m[2]
}

// sdkClient is the SDK's Go client for the agent at url.
func sdkClient(t *testing.T, url string) *a2aclient.Client {
	t.Helper()
	ctx := testkit.Ctx(t)
	card, err := agentcard.DefaultResolver.Resolve(ctx, url)
	require.NoError(t, err)
	c, err := a2aclient.NewFromCard(ctx, card)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// textOf is the text of a task's first artifact.
func artifactText(task *a2a.Task) string {
	if len(task.Artifacts) == 0 || len(task.Artifacts[0].Parts) == 0 {
		return ""
	}
	return task.Artifacts[0].Parts[0].Text()
}

// The SDK's Go client and its `a2a` command give a `switchboard run`
// agent tasks through `switchboard a2a serve`: streamed to completion
// with the agent's answer as an artifact, read back with get and list; a
// task the agent declines is rejected, one canceled is canceled.
func TestA2AServeToTheSDKClientAndCLI(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderA2AConfig(false)), "run")
	coder.awaitStderr("host running")
	gw, url := s.startGateway("--agent", "coder")

	ctx := testkit.Ctx(t)
	c := sdkClient(t, url)
	var events []string
	var id a2a.TaskID
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("sort 5 3 9 1"))}) {
		require.NoError(t, err)
		id = ev.TaskInfo().TaskID
		switch e := ev.(type) {
		case *a2a.Task:
			events = append(events, "task "+string(e.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			events = append(events, "status "+string(e.Status.State))
		case *a2a.TaskArtifactUpdateEvent:
			events = append(events, "artifact "+e.Artifact.Parts[0].Text())
		}
	}
	assert.Equal(t, []string{"task TASK_STATE_SUBMITTED", "status TASK_STATE_WORKING", "artifact 1 3 5 9", "status TASK_STATE_COMPLETED"}, events)
	task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, "1 3 5 9", artifactText(task))

	discover := runA2A(t, "discover", url)
	assert.Contains(t, discover, "coder")
	assert.Contains(t, discover, "sorting")

	out := runA2A(t, "send", url, "--stream", "count words in a b c")
	t.Logf("a2a send --stream:\n%s", out)
	assert.Contains(t, out, "[artifact] 3\n")
	assert.Contains(t, out, "[status] completed\n")

	list := runA2A(t, "list", "tasks", url, "-o", "json")
	assert.Contains(t, list, string(id))

	rejected := runA2A(t, "send", url, "--stream", "fly to the moon")
	assert.Contains(t, rejected, "rejected")
	assert.Contains(t, rejected, "no capability for fly")

	task, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)

	gw.signal(sigterm)
	assert.Equal(t, 0, gw.wait(), "stderr:\n%s", gw.stderrSoFar())
	coder.signal(sigterm)
	assert.Equal(t, 0, coder.wait())
}

var approvalIn = regexp.MustCompile(`\(approval ([0-9a-f-]+)\)`)

// sendUntil streams text as a new task (or, with task, an answer on that
// task) until it is in state want, and returns the last status event.
func sendUntil(t *testing.T, c *a2aclient.Client, task a2a.TaskInfoProvider, text string, want a2a.TaskState) *a2a.TaskStatusUpdateEvent {
	t.Helper()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	if task != nil {
		msg = a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart(text))
	}
	var last *a2a.TaskStatusUpdateEvent
	for ev, err := range c.SendStreamingMessage(testkit.Ctx(t), &a2a.SendMessageRequest{Message: msg}) {
		require.NoError(t, err)
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			last = st
			if st.Status.State == want {
				return st
			}
		}
	}
	require.FailNow(t, "the task did not reach "+string(want), "last: %+v", last)
	return nil
}

// The gateway killed (SIGKILL) while its task waits for an approval
// answers after its restart: the result that came while it was dead
// completes the task; a task that waits for input when the gateway is
// killed again still waits after the restart, and goes on to completed
// when the client approves it; the agent did each task once. A task
// canceled with the SDK's `a2a cancel` is canceled. (The agent works on
// the gateway's tasks one at a time: they are one conversation of its,
// with the gateway.)
func TestA2AGatewayKilledMidTask(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderA2AConfig(true)), "run", "--log-level", "debug")
	coder.awaitStderr("host running")
	gwConf := s.writeConfig("gateway.json", `{"channels": {"a2a": {"clientApproves": true}}}`)
	gw, url := s.startGateway("--config", gwConf, "--agent", "coder")
	port := url[len("http://127.0.0.1:"):strings.Index(url, "/agents/")]
	restart := func() *proc {
		require.NoError(t, gw.cmd.Process.Kill())
		gw.wait()
		gw = s.start("--config", gwConf, "a2a", "serve", "--listen", "127.0.0.1:"+port, "--agent", "coder")
		return gw
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gateway:\n%s\ncoder:\n%s", gw.stderrSoFar(), coder.stderrSoFar())
		}
	})
	c := sdkClient(t, url)
	ctx := testkit.Ctx(t)

	first := sendUntil(t, c, nil, "sort 5 3 9 1", a2a.TaskStateInputRequired)
	question := first.Status.Message.Parts[0].Text()
	assert.Contains(t, question, "coder waits for a person's approval to work on a task from a2a (sort 5 3 9 1)")
	m := approvalIn.FindStringSubmatch(question)
	require.NotNil(t, m, "the question names the approval: %q", question)
	require.NoError(t, gw.cmd.Process.Kill())
	gw.wait()
	assert.Equal(t, "approved: work on a task from a2a for coder\n", s.ok("approvals", "approve", m[1]))
	coder.awaitLine("chat=a2a") // its answer, to the gateway's inbox while the gateway is dead
	gw = s.start("--config", gwConf, "a2a", "serve", "--listen", "127.0.0.1:"+port, "--agent", "coder")
	gw.awaitLine("task=" + string(first.TaskID) + " agent=coder state=completed")
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: first.TaskID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	assert.Equal(t, "1 3 5 9", artifactText(got))

	second := sendUntil(t, c, nil, "count words in a b c", a2a.TaskStateInputRequired)
	restart().awaitLine("serving A2A")
	got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: second.TaskID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateInputRequired, got.Status.State, "as it was")
	assert.Equal(t, second.Status.Message.Parts[0].Text(), got.Status.Message.Parts[0].Text())
	done := sendUntil(t, c, second, "approve", a2a.TaskStateCompleted)
	got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: done.TaskID})
	require.NoError(t, err)
	assert.Equal(t, "3", artifactText(got))
	assert.Len(t, got.Artifacts, 1)

	third := sendUntil(t, c, nil, "sort 2 1", a2a.TaskStateInputRequired)
	out := runA2A(t, "cancel", url, string(third.TaskID))
	assert.Contains(t, strings.ToLower(out), "canceled")
	got, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: third.TaskID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, got.Status.State)

	gw.signal(sigterm)
	assert.Equal(t, 0, gw.wait(), "stderr:\n%s", gw.stderrSoFar())
	coder.signal(sigterm)
	coder.wait()
	log := coder.stderrSoFar()
	assert.Equal(t, 1, strings.Count(log, `text="[mailbox task from a2a] sort 5 3 9 1"`), "sorted once:\n%s", log)
	assert.Equal(t, 1, strings.Count(log, `text="[mailbox task from a2a] count words in a b c"`), "counted once")
}

// freePort returns a port nobody listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// startEcho runs the SDK's echo agent (`a2a serve --echo`) on a free
// port with the card cardJSON (PORT stands for the port) and extra args,
// and returns its URL once it listens.
func startEcho(t *testing.T, s *sandbox, name, cardJSON string, args ...string) string {
	t.Helper()
	bin, err := a2aCLI()
	require.NoError(t, err)
	port := freePort(t)
	card := s.writeConfig(name+"-card.json", strings.ReplaceAll(cardJSON, "PORT", port))
	cmd := exec.Command(bin, append([]string{"serve", "--echo", "--port", port, "--card", card}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	listening := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() { // its traffic log: read to the end, so that it never blocks
			if strings.HasPrefix(sc.Text(), "Listening on") {
				close(listening)
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-drained
		_ = cmd.Wait()
	})
	testkit.Closed(t, listening, name+" listening")
	return "http://127.0.0.1:" + port
}

// A second switchboard host connects A2A agents built from the SDK: its
// user on Feishu (the real channel, against the fake Feishu) asks the agent that can echo (the echo agent's skill, a
// capability in the mailbox) and the 0.3 echo agent by name; the lead
// delegates to them and each result reaches the user's chat.
func TestA2AHostDelegatesToAnA2AAgent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	echo := startEcho(t, s, "echo", `{"name": "Echo Agent", "description": "says back what it is told", "version": "1.0.0",
  "supportedInterfaces": [{"url": "http://127.0.0.1:PORT", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
  "skills": [{"id": "echoing", "name": "Echo", "description": "says it back", "tags": ["echo"]}]}`)
	old := startEcho(t, s, "echo3", `{"name": "Old Echo", "description": "says back what it is told, in A2A 0.3", "version": "1.0.0",
  "supportedInterfaces": [{"url": "http://127.0.0.1:PORT", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
  "capabilities": {"streaming": true}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []}`,
		"--protocol", "0.3", "--transport", "jsonrpc", "--card-compat")

	fake := feishufake.New(feishufake.Options{})
	t.Cleanup(fake.Close)
	lead := s.start("--config", s.writeConfig("lead.json", `{
  "agents": {"defaults": {"workspace": "~/.nanobot/lead"}},
  "channels": {
    "feishu": {"enabled": true, "appId": "`+fake.AppID()+`", "appSecret": "`+fake.AppSecret()+`", "allowFrom": ["*"],
               "baseUrl": "`+fake.URL()+`", "journal": "~/.nanobot/feishu-journal.jsonl", "mediaDir": "~/.nanobot/feishu-media"},
    "mailbox": {"enabled": true, "agentId": "lead", "description": "talks with users and hands work on"},
    "a2a": {"enabled": true, "connect": {"echo": {"url": "`+echo+`"}, "echo3": {"url": "`+old+`"}}}
  }
}`), "run")
	lead.awaitLine("host running")
	ctx := testkit.Ctx(t)
	require.NoError(t, fake.WaitConnections(ctx, 1), "lead's Feishu channel connects")

	echoCard := agentCard(t, s, "echo")
	assert.Equal(t, []any{"echoing"}, echoCard["capabilities"])
	assert.Equal(t, []any{"a2a"}, echoCard["roles"])
	assert.Equal(t, "says back what it is told (A2A agent at "+echo+")", echoCard["description"])
	assert.Contains(t, s.ok("agents"), "echo3")

	// ask posts text as bob in his chat on Feishu and returns the bot's
	// message to that chat that starts with want.
	ask := func(id, text, want string) feishufake.Message {
		t.Helper()
		_, err := fake.PushEvent(ctx, feishufake.Event{MessageID: id, ChatID: "oc_bob", Sender: "ou_bob", Content: feishufake.Text(text)})
		require.NoError(t, err)
		got, err := fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return strings.HasPrefix(m.Text(), want) })
		require.NoError(t, err, "messages so far: %+v", fake.Messages())
		return got[0]
	}
	answer := ask("om_1", "ask someone who can echoing to say hello", "echo finished")
	assert.Equal(t, "echo finished: say hello", answer.Text())
	assert.Equal(t, "ou_bob", answer.ChatID, "to bob: a direct chat is answered by his open_id")

	answer = ask("om_2", "ask echo3 to say hi", "echo3 finished")
	assert.Equal(t, "echo3 finished: say hi", answer.Text())
	assert.Equal(t, "ou_bob", answer.ChatID, "to bob: a direct chat is answered by his open_id")

	lead.signal(sigterm)
	assert.Equal(t, 0, lead.wait(), "stderr:\n%s", lead.stderrSoFar())
	assert.Equal(t, "offline", agentCard(t, s, "echo")["status"])
}
