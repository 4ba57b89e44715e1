package slackfake_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

var quiet = log.New(io.Discard, "", 0)

// slack-go's own Socket Mode client connects to the fake, gets a pushed
// event in an envelope, and acknowledges it; a disconnect request makes it
// connect again.
func TestSocketModeClient(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	api := slack.New(fake.BotToken(), slack.OptionAPIURL(fake.URL()), slack.OptionAppLevelToken(fake.AppToken()), slack.OptionLog(quiet))
	client := socketmode.New(api, socketmode.OptionLog(quiet))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = client.RunContext(ctx) }()

	got := make(chan *slackevents.MessageEvent, 1)
	hellos := make(chan struct{}, 4)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case evt := <-client.Events:
				switch evt.Type {
				case socketmode.EventTypeHello:
					hellos <- struct{}{}
				case socketmode.EventTypeEventsAPI:
					ev := evt.Data.(slackevents.EventsAPIEvent)
					got <- ev.InnerEvent.Data.(*slackevents.MessageEvent)
					_ = client.Ack(*evt.Request)
				}
			}
		}
	}()
	ack, err := fake.PushEvent(testkit.Ctx(t), slackfake.Event{Text: "hi", ThreadTS: "1.2", ClientMsgID: "c-1"})
	require.NoError(t, err)
	ev := testkit.Recv(t, got, "the event")
	assert.Equal(t, "hi", ev.Text)
	assert.Equal(t, "D0DM", ev.Channel)
	assert.Equal(t, "im", ev.ChannelType)
	assert.Equal(t, "U0USER", ev.User)
	assert.Equal(t, ack.Event.TS, ev.TimeStamp)
	assert.Equal(t, "1.2", ev.ThreadTimeStamp)
	assert.Equal(t, "c-1", ev.ClientMsgID)
	testkit.Recv(t, hellos, "the hello")

	fake.Disconnect()
	require.NoError(t, fake.WaitConnections(testkit.Ctx(t), 2), "the client connects again")
	testkit.Recv(t, hellos, "the second hello")
}

// The Web API calls a bot makes: tokens checked, messages and reactions
// recorded, files served to the bot token only, failures injected.
func TestWebAPI(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	ctx := testkit.Ctx(t)
	api := slack.New(fake.BotToken(), slack.OptionAPIURL(fake.URL()), slack.OptionLog(quiet))

	auth, err := api.AuthTestContext(ctx)
	require.NoError(t, err)
	assert.Equal(t, fake.BotUserID(), auth.UserID)
	_, err = slack.New("xoxb-wrong", slack.OptionAPIURL(fake.URL())).AuthTestContext(ctx)
	assert.EqualError(t, err, "invalid_auth")
	_, _, err = slack.New(fake.BotToken(), slack.OptionAPIURL(fake.URL()), slack.OptionAppLevelToken("xapp-wrong")).StartSocketModeContext(ctx)
	assert.EqualError(t, err, "invalid_auth")

	_, ts, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("a & b", true), slack.MsgOptionTS("1.5"))
	require.NoError(t, err)
	assert.Equal(t, []slackfake.Message{{Channel: "C1", TS: ts, ThreadTS: "1.5", Text: "a &amp; b"}}, fake.Messages())

	require.NoError(t, api.AddReactionContext(ctx, "eyes", slack.NewRefToMessage("C1", ts)))
	assert.EqualError(t, api.AddReactionContext(ctx, "eyes", slack.NewRefToMessage("C1", ts)), "already_reacted")
	require.NoError(t, api.RemoveReactionContext(ctx, "eyes", slack.NewRefToMessage("C1", ts)))
	assert.Equal(t, []slackfake.Reaction{{Channel: "C1", TS: ts, Name: "eyes"}, {Channel: "C1", TS: ts, Name: "eyes", Removed: true}},
		fake.Reactions())

	fake.FailNext(slackfake.CallPostMessage, slackfake.Failure{Status: 429, Error: "ratelimited", RetryAfter: 7},
		slackfake.Failure{Status: 503}, slackfake.Failure{Error: "missing_scope", Needed: "chat:write.public"})
	_, _, err = api.PostMessageContext(ctx, "C1", slack.MsgOptionText("x", false))
	var rl *slack.RateLimitedError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	_, _, err = api.PostMessageContext(ctx, "C1", slack.MsgOptionText("x", false))
	var sc slack.StatusCodeError
	require.ErrorAs(t, err, &sc)
	assert.Equal(t, 503, sc.Code)
	_, _, err = api.PostMessageContext(ctx, "C1", slack.MsgOptionText("x", false))
	var se slack.SlackErrorResponse
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "chat:write.public", se.Needed)
}

// A file shared in a message is downloaded from its url_private with the
// bot token; another token ends on the sign-in page, as with Slack.
func TestFiles(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	api := slack.New(fake.BotToken(), slack.OptionAPIURL(fake.URL()), slack.OptionAppLevelToken(fake.AppToken()), slack.OptionLog(quiet))
	client := socketmode.New(api, socketmode.OptionLog(quiet))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = client.RunContext(ctx) }()
	files := make(chan []slack.File, 1)
	go func() {
		for evt := range client.Events {
			if evt.Type == socketmode.EventTypeEventsAPI {
				files <- evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent).Message.Files
				_ = client.Ack(*evt.Request)
				return
			}
		}
	}()
	_, err := fake.PushEvent(testkit.Ctx(t), slackfake.Event{Subtype: "file_share", Text: "see",
		Files: []slackfake.File{{ID: "F1", Name: "notes.txt", Mimetype: "text/plain", Data: []byte("hello file")}}})
	require.NoError(t, err)
	fs := testkit.Recv(t, files, "the files")
	require.Len(t, fs, 1)
	assert.Equal(t, "notes.txt", fs[0].Name)
	var buf bytes.Buffer
	require.NoError(t, api.GetFileContext(testkit.Ctx(t), fs[0].URLPrivateDownload, &buf))
	assert.Equal(t, "hello file", buf.String())
	err = slack.New("xoxb-other", slack.OptionAPIURL(fake.URL())).GetFileContext(testkit.Ctx(t), fs[0].URLPrivateDownload, io.Discard)
	assert.ErrorContains(t, err, "sign-in page")
}

// A push to a connection that closes before the acknowledgement says so.
func TestPushToClosedConnection(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	api := slack.New(fake.BotToken(), slack.OptionAPIURL(fake.URL()), slack.OptionAppLevelToken(fake.AppToken()), slack.OptionLog(quiet))
	client := socketmode.New(api, socketmode.OptionLog(quiet))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = client.RunContext(ctx) }()
	go func() {
		for evt := range client.Events {
			if evt.Type == socketmode.EventTypeEventsAPI {
				cancel() // the client goes away without acknowledging
				return
			}
		}
	}()
	_, err := fake.PushEvent(testkit.Ctx(t), slackfake.Event{Text: "lost"})
	assert.True(t, errors.Is(err, slackfake.ErrConnectionClosed), "%v", err)
}
