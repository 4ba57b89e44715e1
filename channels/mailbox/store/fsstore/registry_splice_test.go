package fsstore

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomCard is a card of agent with some nesting, empty lists and
// non-ASCII text, compact as FinishCard writes cards.
func randomCard(r *rand.Rand, agent string) json.RawMessage {
	caps := []string{}
	for range r.IntN(4) {
		caps = append(caps, fmt.Sprintf("cap-%d", r.IntN(100)))
	}
	card := map[string]any{"agent_id": agent, "capabilities": caps, "status": []string{"idle", "busy", "offline"}[r.IntN(3)],
		"description": fmt.Sprintf("ag\u00e9nt %d \u2028 <b>", r.IntN(1000)), "current_tasks": []string{},
		"extra": map[string]any{"n": r.IntN(10), "deep": []any{1, map[string]any{"a": nil}}}}
	raw, err := json.Marshal(card)
	if err != nil {
		panic(err)
	}
	return raw
}

// TestSpliceRegistryAsParseAndEncode merges random cards (new agents and
// known ones) into random registries both ways: spliced, and parsed and
// encoded as before. The two files hold the same entries, the spliced one
// keeps the untouched entries byte for byte, and findEntryAt finds every
// card in it.
func TestSpliceRegistryAsParseAndEncode(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 1))
	for round := range 200 {
		entries := map[string]json.RawMessage{}
		for i := range r.IntN(50) + 1 {
			id := fmt.Sprintf("a%03d", i*3)
			entries[id] = randomCard(r, id)
		}
		data, err := encodeRegistry(entries)
		require.NoError(t, err)
		cards := map[string]json.RawMessage{}
		for range r.IntN(5) + 1 {
			id := fmt.Sprintf("a%03d", r.IntN(160))
			cards[id] = randomCard(r, id)
		}

		spliced, ok := spliceRegistry(data, cards)
		require.True(t, ok, "round %d", round)
		want := map[string]json.RawMessage{}
		for k, v := range entries {
			want[k] = v
		}
		for k, v := range cards {
			want[k] = v
		}
		got, err := parseRegistry(spliced)
		require.NoError(t, err, "round %d:\n%s", round, spliced)
		require.Len(t, got, len(want), "round %d", round)
		for id, raw := range want {
			assert.JSONEq(t, string(raw), string(got[id]), "round %d, %s", round, id)
			found, _, how := findEntryAt(spliced, id)
			require.Equal(t, entryFound, how, "round %d, %s", round, id)
			assert.JSONEq(t, string(raw), string(found))
		}
		// Untouched entries are the bytes they were.
		for id := range entries {
			if _, changed := cards[id]; changed {
				continue
			}
			before, _, _ := findEntryAt(data, id)
			after, _, _ := findEntryAt(spliced, id)
			assert.Equal(t, string(before), string(after))
		}
	}
}

// A registry the splice cannot vouch for is left to the parser, which
// repairs or rejects it: not laid out with two spaces, corrupt, a key
// twice, an empty object, a card that is not JSON, an id that needs
// escaping.
func TestSpliceRegistryLeavesTheHardCasesToTheParser(t *testing.T) {
	t.Parallel()
	good := map[string]json.RawMessage{"coder": json.RawMessage(`{"agent_id":"coder"}`)}
	for name, tt := range map[string]struct {
		data  string
		cards map[string]json.RawMessage
	}{
		"compact":       {`{"tester":{"agent_id":"tester"}}`, good},
		"torn":          {"{\n  \"tester\": {\"agent_id\": \"te", good},
		"twice":         {"{\n  \"coder\": {},\n  \"coder\": {}\n}\n", good},
		"empty object":  {"{}\n", good},
		"no file":       {"", good},
		"card not JSON": {"{\n  \"tester\": {}\n}\n", map[string]json.RawMessage{"coder": json.RawMessage(`{"agent_id":`)}},
		"escaped id":    {"{\n  \"tester\": {}\n}\n", map[string]json.RawMessage{`co"der`: json.RawMessage(`{}`)}},
		"trailing data": {"{\n  \"tester\": {}\n}\n{}", good},
	} {
		_, ok := spliceRegistry([]byte(tt.data), tt.cards)
		assert.False(t, ok, name)
	}
}

// BenchmarkMergeIntoThousand is the merge of one agent's card (and of 500) into a registry
// of a thousand: spliced, and parsed and encoded (the way a merge went
// before the splice, and still goes when heartbeats are renewed).
func BenchmarkMergeIntoThousand(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	entries := map[string]json.RawMessage{}
	for i := range 1000 {
		id := fmt.Sprintf("a%04d", i)
		entries[id] = randomCard(r, id)
	}
	data, err := encodeRegistry(entries)
	if err != nil {
		b.Fatal(err)
	}
	cards := map[string]json.RawMessage{"a0500": randomCard(r, "a0500")}
	b.Run("spliced", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if _, ok := spliceRegistry(data, cards); !ok {
				b.Fatal("not spliced")
			}
		}
	})
	many := map[string]json.RawMessage{}
	for i := range 500 {
		id := fmt.Sprintf("a%04d", 2*i)
		many[id] = randomCard(r, id)
	}
	b.Run("spliced-500-cards", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if _, ok := spliceRegistry(data, many); !ok {
				b.Fatal("not spliced")
			}
		}
	})
	b.Run("parsed-and-encoded", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			e, err := parseRegistry(data)
			if err != nil {
				b.Fatal(err)
			}
			e["a0500"] = cards["a0500"]
			if _, err := encodeRegistry(e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
