package terminal_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/conversation"
	"github.com/switchboard-dev/switchboard/channels/terminal"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestTalk: a line said at the terminal reaches the bus as a message of
// the chat's session, and the answer, sent through the Manager, is in the
// conversation naming the line it answers.
func TestTalk(t *testing.T) {
	t.Parallel()
	b := bus.New(4)
	defer b.Close()
	cfg := config.Default()
	cfg.Channels = map[string]config.Section{"terminal": {Path: "channels.terminal", Raw: map[string]any{"enabled": true}}}
	m := channels.NewManager(b, channels.ManagerConfig{})
	require.NoError(t, m.Build(channels.DefaultRegistry(), cfg))
	ch, ok := m.Channel("terminal")
	require.True(t, ok)
	term := ch.(*terminal.Channel)
	_, err := term.Say(testkit.Ctx(t), "direct", "hello")
	assert.ErrorIs(t, err, terminal.ErrStopped, "not started")
	term.Attach()
	require.NoError(t, m.Start(testkit.Ctx(t)))
	defer m.Stop(context.Background())

	id, err := term.Say(testkit.Ctx(t), "direct", "hello")
	require.NoError(t, err)
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, id, in.ID)
	assert.Equal(t, "terminal:direct", in.SessionKey())
	assert.Equal(t, terminal.Sender, in.SenderID)
	assert.Equal(t, "hello", in.Content)
	require.NoError(t, b.PublishOutbound(testkit.Ctx(t), bus.OutboundMessage{Channel: "terminal", ChatID: "direct",
		Content: "hi there", Metadata: in.Metadata}))
	var got []conversation.Answer
	require.NoError(t, term.Conversation().Follow(testkit.Ctx(t), "direct", id, false, func(a conversation.Answer) { got = append(got, a) }))
	require.Len(t, got, 1)
	assert.Equal(t, "hi there", got[0].Text)
	assert.Len(t, term.Hooks(), 1, "it offers the loop the hook that follows delegated tasks")
}

// TestNobodyAtTheTerminal: a terminal channel no front end attached to
// (enabled in a config for switchboard run) does not start, and says why.
func TestNobodyAtTheTerminal(t *testing.T) {
	t.Parallel()
	ch, err := terminal.New(terminal.DefaultConfig(), channels.Deps{Bus: bus.New(1)})
	require.NoError(t, err)
	err = ch.Start(testkit.Ctx(t))
	assert.ErrorContains(t, err, "channels.terminal: nobody is at the terminal")

	err = terminal.Check(config.Section{Path: "channels.terminal", Raw: map[string]any{"enabled": true}})
	assert.ErrorContains(t, err, "channels.terminal.enabled: the terminal channel is the chat of `switchboard agent`",
		"config check says what run finds")
	assert.NoError(t, terminal.Check(config.Section{Path: "channels.terminal", Raw: map[string]any{"allowFrom": []any{"user"}}}))
	_, err = terminal.DecodeConfig(config.Section{Path: "channels.terminal", Raw: map[string]any{"enabled": true, "allowFrom": []any{}}})
	assert.ErrorContains(t, err, "channels.terminal.allowFrom: empty list denies every sender")
	err = terminal.Check(config.Section{Path: "channels.terminal", Raw: map[string]any{"colour": "blue"}})
	assert.ErrorContains(t, err, "channels.terminal.colour")
}
