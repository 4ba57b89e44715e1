package main_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentsShowsOpenBreakers: a breaker an agent saved (as its running
// channel does when it opens) shows on the row of the agent it protects,
// in the table and in --json; an expired one does not.
func TestAgentsShowsOpenBreakers(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	until := time.Now().Add(90 * time.Second).UTC().Format(time.RFC3339Nano)
	past := time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	s.writeFile("researcher/state/breakers.json", fmt.Sprintf(`{"open":[`+
		`{"by":"researcher","to":"coder","until":%q,"reason":"5 failures within 60s, the last: task rejected: busy"},`+
		`{"by":"researcher","to":"newcomer","until":%q,"reason":"expired"}]}`, until, past))

	human := s.ok("agents")
	assert.Regexp(t, `(?m)^coder \(unverified\) +idle, breaker open \(researcher 1m(29|30)s\) +1 +0/3 `, human)
	assert.NotContains(t, human, "expired")

	byID := map[string]map[string]any{}
	for _, l := range decodeLines(t, s.ok("agents", "--json")) {
		byID[l["agent_id"].(string)] = l
	}
	require.Contains(t, byID["coder"], "breakers")
	b := byID["coder"]["breakers"].([]any)[0].(map[string]any)
	assert.Equal(t, "researcher", b["by"])
	assert.Contains(t, b["reason"], "task rejected: busy")
	assert.NotContains(t, byID["researcher"], "breakers")

	s.writeFile("researcher/state/breakers.json", `{"open":`)
	out := s.run("agents")
	assert.Equal(t, 0, out.code, "a bad record does not stop the listing")
	assert.Contains(t, out.stderr, `circuit breakers not shown: read the breakers of "researcher": corrupt record`)
}
