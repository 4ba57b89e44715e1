package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
)

// budgetTool is delegate_task whose budgets come from left.
func budgetTool(t *testing.T, mb tools.Mailbox, left func(*agent.Turn) (*envelope.Budget, error)) agent.Tool {
	t.Helper()
	return settlingTool(t, mb, left, func(string) {})
}

// settlingTool is budgetTool whose budgets are settled with settle.
func settlingTool(t *testing.T, mb tools.Mailbox, left func(*agent.Turn) (*envelope.Budget, error), settle func(string)) agent.Tool {
	t.Helper()
	hand := func(turn *agent.Turn) (*envelope.Budget, func(string), error) {
		b, err := left(turn)
		return b, settle, err
	}
	c := loopCaller(mb)
	c.Budget = hand
	set, err := agentloop.NewTools(tools.Loop(c)...)
	require.NoError(t, err)
	tl, ok := set.Get("delegate_task")
	require.True(t, ok)
	return tl
}

func TestDelegateCarriesWhatIsLeftOfTheBudget(t *testing.T) {
	fake := newFake()
	turn := fromUser()
	var asked *agent.Turn
	tl := budgetTool(t, fake, func(t *agent.Turn) (*envelope.Budget, error) {
		asked = t
		return &envelope.Budget{Tokens: 700}, nil
	})
	_, err := run(t, tl, turn, `{"capability":"sorting","task":"sort 3 1"}`)
	require.NoError(t, err)
	assert.Same(t, turn, asked, "the budget is that of the delegating turn")
	require.Len(t, fake.posts(), 1)
	assert.Equal(t, &envelope.Budget{Tokens: 700}, fake.posts()[0].Budget)
	assert.Equal(t, "any:sorting", fake.posts()[0].Via, "a task sent for a capability may go to another holder")
}

func TestDelegateToAnAgentIsNotReoffered(t *testing.T) {
	fake := newFake()
	_, err := run(t, budgetTool(t, fake, func(*agent.Turn) (*envelope.Budget, error) { return nil, nil }),
		fromUser(), `{"to":"coder","task":"sort 3 1"}`)
	require.NoError(t, err)
	assert.Empty(t, fake.posts()[0].Via)
	assert.Nil(t, fake.posts()[0].Budget)
}

func TestDelegateRefusedWhenTheBudgetIsSpent(t *testing.T) {
	fake := newFake()
	tl := budgetTool(t, fake, func(*agent.Turn) (*envelope.Budget, error) {
		return nil, &agent.TaskFailure{Reason: "budget exhausted: the task used 90 of its 80 tokens"}
	})
	_, err := tl.Execute(context.Background(), agent.Call{ID: "c1", Name: "delegate_task",
		Arguments: `{"to":"coder","task":"sort 1"}`, Turn: fromUser()})
	assert.EqualError(t, err, "budget exhausted: the task used 90 of its 80 tokens; the task is not delegated")
	assert.Empty(t, fake.posts(), "nothing is sent")
}

// The budget handed out is settled with the id of the task sent, or with
// "" when nothing was sent, so that it is not set aside for ever.
func TestDelegateSettlesTheBudgetItHandedOut(t *testing.T) {
	fake := newFake()
	var settled []string
	tl := settlingTool(t, fake, func(*agent.Turn) (*envelope.Budget, error) {
		return &envelope.Budget{Tokens: 50}, nil
	}, func(id string) { settled = append(settled, id) })
	_, err := run(t, tl, fromUser(), `{"to":"coder","task":"sort 3 1"}`)
	require.NoError(t, err)
	require.Len(t, fake.posts(), 1)
	_, err = tl.Execute(context.Background(), agent.Call{ID: "c2", Name: "delegate_task",
		Arguments: `{"to":"nobody-known","task":"sort 1"}`, Turn: fromUser()})
	require.Error(t, err)
	require.Len(t, settled, 2)
	assert.True(t, strings.HasPrefix(settled[0], "task_"), "the task sent: %q", settled[0])
	assert.Empty(t, settled[1], "nothing sent: the budget is freed")
}
