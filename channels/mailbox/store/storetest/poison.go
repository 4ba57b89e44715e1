package storetest

import (
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runPoison(t *testing.T) {
	if s.feat.NoRawInput {
		t.Skip("the backend cannot hold input that does not decode")
	}
	t.Run("SetAsideAndContinue", testkit.Parallel(s.testPoisonSetAside))
}

// testPoisonSetAside: input that does not decode, is too large or is
// addressed to another agent is set aside with a reason (EventQuarantined)
// and never stops the inbox: the good message behind it arrives.
func (s *suite) testPoisonSetAside(t *testing.T) {
	w := s.world(t)
	if w.h.InjectRaw == nil {
		t.Fatal("Harness.InjectRaw is nil; set Features.NoRawInput if the backend cannot hold raw input")
	}
	ev := testkit.NewEvents()
	be := w.open(t, ev.Observe)
	other, err := envelope.Encode(NewMessage("alice", "carol", "not for bob"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{
		"not json":  []byte("{not json"),
		"empty":     {},
		"no id":     []byte(`{"from":"alice","to":"bob","type":"message"}`),
		"bad type":  []byte(`{"id":"x1","from":"alice","to":"bob","type":"shout"}`),
		"other":     other,
		"too large": []byte(`{"id":"x2","from":"alice","to":"bob","type":"message","content":{"parts":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}}`),
	}
	for _, name := range []string{"not json", "empty", "no id", "bad type", "other", "too large"} {
		w.h.InjectRaw(t, "bob", "alice", inputs[name])
	}
	good := NewMessage("alice", "bob", "good")
	Deliver(t, be, good)
	ExpectNext(t, OpenInbox(t, be, "bob"), good.ID)
	ev.WaitKindCount(t, store.EventQuarantined, len(inputs))
	assert.Equal(t, len(inputs), ev.CountKind(store.EventQuarantined), "each bad input set aside once: %s", ev)
}
