package host_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/host"
)

// slowc is registered and offline when the task is sent to it by name:
// after acceptTimeout on the researcher's clock the user is told, in the
// words docs/guardrails.md gives, that it waits in slowc's inbox; slowc
// sent nothing, and the user reads no update "from" it. When slowc comes
// back it takes the task up and the result reaches the chat.
func TestHostTellsTheUserATaskWaitsUnaccepted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	slowcCfg := w.config("slowc", false, map[string]any{"capabilities": []string{"sorting"}})
	first := w.start(slowcCfg, host.Options{})
	require.NoError(t, first.Stop()) // registered, now offline
	clk := clock.NewManual(time.Now())
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{Clock: clk}), "oc_1")

	c.say("ask slowc to sort 5 3 9 1")
	asked := c.await("I asked slowc")
	clk.Add(30 * time.Second)
	told := c.await("waits")
	m := regexp.MustCompile(`^task (task_\S+): slowc did not accept it within 30s \(channels\.mailbox\.acceptTimeout\); ` +
		`it waits in slowc's inbox until slowc takes it up$`).FindStringSubmatch(told)
	require.NotNil(t, m, "told %q", told)
	assert.Contains(t, asked, "(task "+m[1]+")", "the task the user was told of")

	w.start(slowcCfg, host.Options{})
	assert.Equal(t, "slowc finished: 1 3 5 9", c.await("finished"))
}
