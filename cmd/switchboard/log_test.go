package main_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kindsOf returns the kind and message id of each log --json line (the
// id empty for an entry about no message: a key pinned).
func kindsOf(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		id, _ := l["message_id"].(string)
		out = append(out, l["kind"].(string)+" "+id)
	}
	return out
}

func TestLogRecordsSendsAndReceives(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assert.Equal(t, "no audit entries in "+s.root+"\n", s.ok("log"))

	first := s.sendID("--from", "researcher", "--to", "coder", "--text", "one")
	second := s.sendID("--from", "planner", "--to", "coder", "--text", "two")
	s.ok("recv", "coder", "--count", "2")

	all := decodeLines(t, s.ok("log", "--json"))
	got := kindsOf(all)
	require.Len(t, got, 9)
	assert.Equal(t, []string{"sent " + first, "sent " + second, "key "}, got[:3], "coder pins its key when it first starts")
	assert.Regexp(t, `^pinned U[A-Z0-9]{55} by itself$`, all[2]["reason"])
	// Each message in the order of its life; recv may take the second
	// before it has printed (and so acknowledged) the first.
	for _, id := range []string{first, second} {
		var life []string
		for _, k := range got {
			if kind, of, _ := strings.Cut(k, " "); of == id {
				life = append(life, kind)
			}
		}
		assert.Equal(t, []string{"sent", "claimed", "delivered", "processed"}, life, id)
	}
	assert.Less(t, slices.Index(got, "claimed "+first), slices.Index(got, "claimed "+second), "in send order")
	for _, l := range all {
		assert.Equal(t, "coder", l["agent"])
		assert.NotEmpty(t, l["time"])
		assert.NotZero(t, l["pid"])
		assertSnakeCase(t, l, "log --json")
	}
	assert.Equal(t, first, all[0]["thread_id"], "a new message starts its own thread")

	byPlanner := decodeLines(t, s.ok("log", "--agent", "planner", "--json"))
	assert.Equal(t, []string{"sent " + second, "claimed " + second, "delivered " + second, "processed " + second}, kindsOf(byPlanner))
	sent := decodeLines(t, s.ok("log", "--kind", "sent,processed", "--id", first, "--json"))
	assert.Equal(t, []string{"sent " + first, "processed " + first}, kindsOf(sent))
	assert.Empty(t, s.ok("log", "--since", "2099-01-01T00:00:00Z", "--json"))
	assert.Len(t, decodeLines(t, s.ok("log", "--since", "1h", "--json")), 9)

	human := strings.Split(strings.TrimSuffix(s.ok("log", "--kind", "sent"), "\n"), "\n")
	require.Len(t, human, 3)
	assert.Regexp(t, `^AGE +KIND +AGENT +FROM +ID +DETAIL$`, human[0])
	assert.Regexp(t, `^(just now|\d+s ago) +sent +coder +researcher +`+first+` +-$`, human[1])
}

func TestLogUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assertOneLineError(t, s.run("log", "--kind", "bogus"), 2, `--kind "bogus": want one of sent, claimed`)
	assertOneLineError(t, s.run("log", "--since", "yesterday"), 2, "--since: want an RFC 3339 time")
	assertOneLineError(t, s.run("log", "--agent", "../x"), 2, "--agent: invalid agent id")
	assertOneLineError(t, s.run("log", "extra"), 2, `unexpected argument "extra"`)
	assert.Empty(t, files(t, s.root))
}
