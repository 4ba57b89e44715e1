package httpapi_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/httpapi"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// client is the official OpenAI client pointed at the channel.
func (h *harness) client(opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(h.url + "/v1"), option.WithAPIKey("unused"),
		option.WithMaxRetries(0)}, opts...)...)
}

func userMessage(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "switchboard",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage(text)}}
}

// TestOpenAIClient: the official client lists the agent as the model,
// and gets the agent's answer to the last user message as a completion,
// whole and streamed; the session is the request's user, or the
// X-Session-Id header.
func TestOpenAIClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t)
	client := h.client()

	models, err := client.Models.List(ctx)
	require.NoError(t, err)
	require.Len(t, models.Data, 1)
	assert.Equal(t, "switchboard", models.Data[0].ID)

	params := userMessage("hello")
	params.User = openai.String("ada")
	resp, err := client.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1)
	assert.Equal(t, "echo: hello", resp.Choices[0].Message.Content)
	assert.Equal(t, "stop", resp.Choices[0].FinishReason)
	assert.Equal(t, "switchboard", resp.Model)
	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "ada", in.ChatID, "the user is the session")
	assert.Equal(t, "ada", in.SenderID)
	assert.Equal(t, "http:ada", in.SessionKey())
	assert.Equal(t, "echo: hello", h.poll("ada", 0).Answers[0].Text, "the answer is in the session")

	stream := client.Chat.Completions.NewStreaming(ctx, userMessage("streamed"), option.WithHeader("X-Session-Id", "s2"))
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	require.NoError(t, stream.Err())
	require.Len(t, acc.Choices, 1)
	assert.Equal(t, "echo: streamed", acc.Choices[0].Message.Content)
	assert.Equal(t, "stop", acc.Choices[0].FinishReason)
	assert.Equal(t, "echo: streamed", h.poll("s2", 0).Answers[0].Text, "X-Session-Id names the session")
}

// TestOpenAICompletionWaitsForDelegatedTasks: the completion of a message
// from which the agent delegated a task holds the agent's answer and the
// answer to the task's final update; streamed, each comes as it is sent.
func TestOpenAICompletionWaitsForDelegatedTasks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t)
	client := h.client()
	stream := client.Chat.Completions.NewStreaming(ctx, userMessage("delegate"))
	require.True(t, stream.Next(), "the first chunk: %v", stream.Err())
	assert.Equal(t, "I asked coder.", stream.Current().Choices[0].Delta.Content, "the agent's answer comes before the task ends")
	close(h.finish)
	var rest string
	for stream.Next() {
		if len(stream.Current().Choices) > 0 {
			rest += stream.Current().Choices[0].Delta.Content
		}
	}
	require.NoError(t, stream.Err())
	assert.Equal(t, "\n\ncoder finished: 1 2 3", rest)
	a := h.poll("default", 0)
	assert.True(t, a.Settled)
	assert.Len(t, a.Answers, 2)
}

// TestOpenAIErrors: what the client hears when the model is not the
// agent, the agent could not answer, there is no user message, or no
// answer came in time.
func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *httpapi.Config) { c.WaitSeconds = 0.2 })
	ctx := testkit.Ctx(t)
	client := h.client()
	var apiErr *openai.Error

	params := userMessage("hello")
	params.Model = "gpt-4o"
	_, err := client.Chat.Completions.New(ctx, params)
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, `model "gpt-4o": this endpoint serves "switchboard" (GET /v1/models)`, apiErr.Message)

	_, err = client.Chat.Completions.New(ctx, userMessage("fail"))
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
	assert.Equal(t, "the agent could not answer: the model could not be reached", apiErr.Message)

	_, err = client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "switchboard",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("only a system message")}})
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Contains(t, apiErr.Message, `no message with role "user"`)

	_, err = client.Chat.Completions.New(ctx, userMessage("hold"), option.WithHeader("Idempotency-Key", "k1"))
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusGatewayTimeout, apiErr.StatusCode)
	assert.Contains(t, apiErr.Message, "no answer within 0.2s (channels.http.waitSeconds); the message default/k1 is taken")

	stream := client.Chat.Completions.NewStreaming(ctx, userMessage("fail"))
	assert.False(t, stream.Next())
	require.True(t, errors.As(stream.Err(), &apiErr), "%v", stream.Err())
	assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode, "a stream that cannot start is an error too")
}

func optionAPIKey(key string) option.RequestOption { return option.WithAPIKey(key) }
