package main_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

var httpAttr = regexp.MustCompile(`\bhttp=(\S+)`)

// TestChatFrontEndTalksToTheTeam: a chat front-end speaking OpenAI's API
// (the official client) asks researcher, whose config enables the HTTP
// channel, for work that researcher delegates to coder, a second
// process; the completion holds researcher's answer and coder's result.
func TestChatFrontEndTalksToTheTeam(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderConfig), "run")
	researcher := s.start("--config", s.writeConfig("researcher.json", `{
  "agents": {"defaults": {"workspace": "~/.nanobot/researcher"}},
  "channels": {
    "http": {"enabled": true, "listen": "127.0.0.1:0", "apiKey": "t0ken"},
    "mailbox": {"enabled": true, "agentId": "researcher"}
  }
}`), "run")
	m := httpAttr.FindStringSubmatch(researcher.awaitLine("host running"))
	require.NotNil(t, m, "researcher logs the HTTP channel's address")
	coder.awaitStderr("host running")

	client := openai.NewClient(option.WithBaseURL(m[1]+"/v1"), option.WithAPIKey("t0ken"), option.WithMaxRetries(0))
	ctx := testkit.CtxFor(t, testkit.Steps(4)) // the answer waits for a delegation to coder and its reply
	models, err := client.Models.List(ctx)
	require.NoError(t, err)
	require.Len(t, models.Data, 1)
	assert.Equal(t, "researcher", models.Data[0].ID, "the model is the agent")
	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "researcher", User: openai.String("ada"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("ask coder to sort 6 5 4")}})
	require.NoError(t, err)
	parts := strings.Split(resp.Choices[0].Message.Content, "\n\n")
	require.Len(t, parts, 3, resp.Choices[0].Message.Content)
	assert.Regexp(t, `^I asked coder to sort 6 5 4 \(task task_\S+\)`, parts[0])
	assert.Equal(t, "coder finished: 4 5 6", parts[2])

	for _, p := range []*proc{researcher, coder} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderrSoFar())
	}
	assert.NotContains(t, researcher.stderrSoFar(), "t0ken", "the token is never logged")
}
