package tools_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// TestLimitedSendTellsTheModelToWait: a send refused by a rate limit or an
// open breaker is reported with how long to wait and what to do meanwhile.
func TestLimitedSendTellsTheModelToWait(t *testing.T) {
	for _, tt := range []struct {
		name, tool, args string
		err              *route.LimitError
		want             []string
	}{
		{"rate", "send_message", `{"to":"coder","text":"again"}`,
			&route.LimitError{Kind: route.ErrRateLimited, From: "researcher", To: "coder", RetryAfter: 1500 * time.Millisecond,
				Rule: "over 30/min, burst 10 to one agent (channels.mailbox.limits.perEdge)"},
			[]string{"send researcher → coder: rate limited: over 30/min, burst 10 to one agent", "you are sending too fast",
				"Wait at least 2s before trying this agent again"}},
		{"breaker", "delegate_task", `{"to":"coder","task":"sort 1"}`,
			&route.LimitError{Kind: route.ErrBreakerOpen, From: "researcher", To: "coder", RetryAfter: 90 * time.Second,
				Rule: "5 failures within 60s, the last: task rejected: busy (channels.mailbox.limits.breaker)"},
			[]string{"circuit breaker open", "that agent keeps failing or rejecting work", "Wait at least 1m30s",
				"do the work yourself or tell the user it is delayed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake()
			fake.postErr = tt.err
			_, err := run(t, tool(t, fake, tt.tool), fromUser(), tt.args)
			require.ErrorIs(t, err, tt.err.Kind)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
