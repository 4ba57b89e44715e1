package feishufake_test

import (
	"context"
	"io"
	"testing"

	lark "github.com/larksuite/oapi-sdk-go/v3"
	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// quiet is a larkcore.Logger that drops everything.
type quiet struct{}

func (quiet) Debug(context.Context, ...any) {}
func (quiet) Info(context.Context, ...any)  {}
func (quiet) Warn(context.Context, ...any)  {}
func (quiet) Error(context.Context, ...any) {}

// The SDK's own long-connection client takes an event from the fake and
// answers it: the fake speaks the SDK's protocol.
func TestSDKLongConnectionClient(t *testing.T) {
	// The fake stays up until the test binary exits: the SDK's client
	// cannot be stopped, and when its connection closes it clears its
	// fields without the lock its other goroutines would need to read
	// them, which the race detector reports.
	fake := feishufake.New(feishufake.Options{AppID: "cli_sdkws", QuietPongs: true})
	got := make(chan string, 1)
	handler := dispatcher.NewEventDispatcher("", "").OnP2MessageReceiveV1(func(_ context.Context, ev *larkim.P2MessageReceiveV1) error {
		got <- *ev.Event.Message.MessageId + " " + *ev.Event.Message.Content
		return nil
	})
	cli := larkws.NewClient(fake.AppID(), fake.AppSecret(), larkws.WithDomain(fake.URL()), larkws.WithEventHandler(handler),
		larkws.WithAutoReconnect(false), larkws.WithLogger(quiet{}))
	go func() { _ = cli.Start(context.Background()) }() // it never returns: the SDK's client cannot be stopped
	ack, err := fake.PushEvent(testkit.Ctx(t), feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")})
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	assert.Equal(t, `om_1 {"text":"hi"}`, testkit.Recv(t, got, "the event"))
	require.NoError(t, fake.WaitPings(testkit.Ctx(t), 1), "the SDK pings at once")
}

// The SDK's REST client works against the fake: a token, a reply with
// its uuid, a resource, a reaction; wrong credentials are refused.
func TestSDKRestClient(t *testing.T) {
	fake := feishufake.New(feishufake.Options{AppID: "cli_sdkrest"})
	t.Cleanup(fake.Close)
	ctx := testkit.Ctx(t)
	cli := lark.NewClient(fake.AppID(), fake.AppSecret(), lark.WithOpenBaseUrl(fake.URL()), lark.WithLogger(quiet{}))

	reply := func() *larkim.ReplyMessageResp {
		resp, err := cli.Im.V1.Message.Reply(ctx, larkim.NewReplyMessageReqBuilder().MessageId("om_1").Body(
			larkim.NewReplyMessageReqBodyBuilder().MsgType("text").Content(feishufake.Text("hello")).Uuid("u-1").Build()).Build())
		require.NoError(t, err)
		require.True(t, resp.Success(), resp.Msg)
		return resp
	}
	first, again := reply(), reply()
	assert.Equal(t, *first.Data.MessageId, *again.Data.MessageId, "a send with the same uuid is the same message")
	assert.Equal(t, 1, fake.Duplicates())
	msgs := fake.Messages()
	require.Len(t, msgs, 1)
	assert.Equal(t, feishufake.Message{ID: msgs[0].ID, ReplyTo: "om_1", MsgType: "text", Content: `{"text":"hello"}`, UUID: "u-1"}, msgs[0])
	assert.Equal(t, "hello", msgs[0].Text())

	fake.AddResource("om_1", "img_1", "a.png", []byte("data"))
	res, err := cli.Im.V1.MessageResource.Get(ctx, larkim.NewGetMessageResourceReqBuilder().MessageId("om_1").FileKey("img_1").Type("image").Build())
	require.NoError(t, err)
	require.True(t, res.Success())
	data, _ := io.ReadAll(res.File)
	assert.Equal(t, "data", string(data))
	assert.Equal(t, "a.png", res.FileName)

	rx, err := cli.Im.V1.MessageReaction.Create(ctx, larkim.NewCreateMessageReactionReqBuilder().MessageId("om_1").Body(
		larkim.NewCreateMessageReactionReqBodyBuilder().ReactionType(larkim.NewEmojiBuilder().EmojiType("OK").Build()).Build()).Build())
	require.NoError(t, err)
	require.True(t, rx.Success())
	assert.Equal(t, []feishufake.Reaction{{MessageID: "om_1", ReactionID: *rx.Data.ReactionId, Emoji: "OK"}}, fake.Reactions())

	bad := lark.NewClient("cli_sdkrest_bad", "nope", lark.WithOpenBaseUrl(fake.URL()), lark.WithLogger(quiet{}))
	_, err = bad.Im.V1.Message.Reply(ctx, larkim.NewReplyMessageReqBuilder().MessageId("om_1").Body(
		larkim.NewReplyMessageReqBodyBuilder().MsgType("text").Content(feishufake.Text("x")).Build()).Build())
	var ce larkcore.CodeError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 10014, ce.Code)
}
