package agentloop_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// callThenEcho asks for tool name once, then answers with what the tool
// returned.
func callThenEcho(name string) providerFunc {
	return func(_ context.Context, req agent.Request) (*agent.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == agent.RoleTool {
			return &agent.Response{Content: "tool said: " + last.Content}, nil
		}
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "c1", Name: name, Arguments: `{"env":"prod"}`}}}, nil
	}
}

// auditBook is an approval book that keeps an audit log as a channel's
// book does: each approval put, and each decision made through it.
type auditBook struct {
	agent.ApprovalBook
	mu      sync.Mutex
	reasons []string
	// refused receives each refused answer as it is recorded.
	refused chan agent.Refusal
}

func newAuditBook(b agent.ApprovalBook) *auditBook {
	if b == nil {
		b = newMemBook()
	}
	return &auditBook{ApprovalBook: b, refused: make(chan agent.Refusal, 16)}
}

var _ agent.RefusalRecorder = (*auditBook)(nil)

func (a *auditBook) RecordRefusal(_ context.Context, ap agent.Approval, r agent.Refusal) {
	a.mu.Lock()
	a.reasons = append(a.reasons, r.Summary(ap))
	a.mu.Unlock()
	a.refused <- r
}

func (a *auditBook) add(ap agent.Approval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reasons = append(a.reasons, ap.Summary())
}

func (a *auditBook) PutApproval(ctx context.Context, ap agent.Approval) error {
	err := a.ApprovalBook.PutApproval(ctx, ap)
	if err == nil {
		a.add(ap)
	}
	return err
}

func (a *auditBook) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	got, err := a.ApprovalBook.DecideApproval(ctx, id, d)
	if err == nil {
		a.add(got)
	}
	return got, err
}

// recorded returns the audit log's entries.
func (a *auditBook) recorded() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.reasons...)
}

// approvalLoop starts a loop whose tool "deploy" needs approval, its
// approvals kept in book (nil: one of its own) with an audit log.
func approvalLoop(t *testing.T, clk clock.Clock, book agent.ApprovalBook) (*started, *countTool, *auditBook) {
	t.Helper()
	deploy := &countTool{name: "deploy"}
	tools, err := agentloop.NewTools(deploy)
	require.NoError(t, err)
	rec := newAuditBook(book)
	s := start(t, agentloop.Config{Provider: callThenEcho("deploy"), Tools: tools, AgentID: "ops",
		Approval: agentloop.ApprovalConfig{Tools: []string{"deploy"}, Timeout: time.Minute, Clock: clk, Book: rec}})
	return s, deploy, rec
}

func TestApprovalGrantedInTheChat(t *testing.T) {
	t.Parallel()
	s, deploy, rec := approvalLoop(t, clock.NewManual(time.Now()), nil)
	s.send(t, user("c1", "deploy it"))
	q := s.recv(t)
	assert.Equal(t, "c1", q.ChatID, "asked in the chat the turn came from")
	assert.Contains(t, q.Content, "Approval needed: ops wants to run tool deploy")
	assert.Contains(t, q.Content, `{"env":"prod"}`)

	// The session is busy waiting; the answer must not queue behind it.
	s.send(t, user("c1", "Approve"))
	out := s.recv(t)
	assert.Equal(t, "tool said: deploy ran 1 times", out.Content)
	deploy.mu.Lock()
	assert.Equal(t, 1, deploy.n)
	deploy.mu.Unlock()
	assert.Equal(t, []string{`asked: run tool deploy ({"env":"prod"})`, `approved by u_c1: run tool deploy ({"env":"prod"})`}, rec.recorded())
	assert.Equal(t, agentloop.ApprovalStats{Tool: agentloop.ApprovalCounts{Asked: 1, Approved: 1}}, s.loop.ApprovalStats())
}

func TestApprovalTimesOutDenied(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	s, deploy, rec := approvalLoop(t, clk, nil)
	s.send(t, user("c2", "deploy it"))
	require.Contains(t, s.recv(t).Content, "Approval needed")
	clk.Add(time.Minute)
	assert.Contains(t, s.recv(t).Content, "No answer within 1m0s: denied, ops will not run tool deploy.")
	out := s.recv(t)
	assert.Contains(t, out.Content, "tool said: error: running tool deploy needs a person's approval, and none came in time: denied.")
	deploy.mu.Lock()
	assert.Zero(t, deploy.n, "the tool did not run")
	deploy.mu.Unlock()
	reasons := rec.recorded()
	require.Len(t, reasons, 2)
	assert.True(t, strings.HasPrefix(reasons[1], "denied by timeout: run tool deploy"), reasons[1])
	assert.Equal(t, agentloop.ApprovalStats{Tool: agentloop.ApprovalCounts{Asked: 1, TimedOut: 1}}, s.loop.ApprovalStats())

	// A later "deny" in that chat is an ordinary message again.
	s.send(t, user("c2", "deny"))
	assert.Equal(t, "c2", s.recv(t).ChatID)
}

func TestApprovalDecidedByAnotherProcess(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	book := newMemBook()
	s, deploy, _ := approvalLoop(t, clk, book)
	ctx := testkit.Ctx(t)
	s.send(t, user("c3", "deploy it"))
	require.Contains(t, s.recv(t).Content, "Approval needed")
	list, err := book.ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "ops", list[0].Agent)
	assert.Equal(t, "feishu", list[0].Channel)
	_, err = book.DecideApproval(ctx, list[0].ID, agent.Decision{Allow: false, By: agent.Operator, Reason: "not today", Time: clk.Now()})
	require.NoError(t, err)
	clk.Add(time.Second) // the loop's next look at the book
	assert.Equal(t, "The operator denied: run tool deploy.", s.recv(t).Content)
	assert.Equal(t, "tool said: error: the operator denied running tool deploy: not today. Do not try it again; go on without it.", s.recv(t).Content)
	deploy.mu.Lock()
	assert.Zero(t, deploy.n)
	deploy.mu.Unlock()
	list, err = book.ListApprovals(ctx)
	require.NoError(t, err)
	assert.Empty(t, list, "the agent removed its approval once decided")
	assert.Equal(t, agentloop.ApprovalStats{Tool: agentloop.ApprovalCounts{Asked: 1, Denied: 1}}, s.loop.ApprovalStats())
}

// jumpyClock is a manual clock that another goroutine moves on by jump,
// once, just as the first timer is set: after its reader read the time.
type jumpyClock struct {
	*clock.Manual
	jump time.Duration
	once sync.Once
}

func (j *jumpyClock) NewTimer(d time.Duration) clock.Timer {
	j.once.Do(func() { j.Manual.Add(j.jump) })
	return j.Manual.NewTimer(d)
}

// An approval whose deadline the clock passed while the gate set its
// timer is denied at once, not a whole timeout later.
func TestApprovalDeadlinePassedWhileSettingTheTimer(t *testing.T) {
	t.Parallel()
	s, deploy, _ := approvalLoop(t, &jumpyClock{Manual: clock.NewManual(time.Now()), jump: 2 * time.Minute}, nil)
	s.send(t, user("c3", "deploy it"))
	require.Contains(t, s.recv(t).Content, "Approval needed")
	assert.Contains(t, s.recv(t).Content, "No answer within 1m0s: denied")
	assert.Contains(t, s.recv(t).Content, "none came in time: denied")
	deploy.mu.Lock()
	assert.Zero(t, deploy.n, "the tool did not run")
	deploy.mu.Unlock()
}

// An agent that stops while it waits denies the step, and tells the book,
// so that the audit log says how the approval ended.
func TestApprovalDeniedByTheStop(t *testing.T) {
	t.Parallel()
	book := newMemBook()
	s, deploy, rec := approvalLoop(t, clock.NewManual(time.Now()), book)
	s.send(t, user("c4", "deploy it"))
	require.Contains(t, s.recv(t).Content, "Approval needed")
	s.stop()
	assert.Equal(t, []string{`asked: run tool deploy ({"env":"prod"})`,
		`denied by stop: run tool deploy ({"env":"prod"}): the agent is stopping`}, rec.recorded())
	deploy.mu.Lock()
	assert.Zero(t, deploy.n, "the tool did not run")
	deploy.mu.Unlock()
	list, err := book.ListApprovals(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Empty(t, list, "the agent removed its approval")
	assert.Equal(t, agentloop.ApprovalStats{Tool: agentloop.ApprovalCounts{Asked: 1, NotAsked: 1}}, s.loop.ApprovalStats())
}
