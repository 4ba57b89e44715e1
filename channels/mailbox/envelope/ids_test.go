package envelope_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestValidateAgentID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"coder", true},
		{"agent-1", true},
		{"agent_1", true},
		{"v1.2", true},
		{"Researcher", true},
		{"研究员", true},
		{strings.Repeat("a", envelope.MaxAgentIDLen), true},
		{"", false},
		{strings.Repeat("a", envelope.MaxAgentIDLen+1), false},
		{strings.Repeat("研", 22), false}, // 66 bytes
		{".", false},
		{"..", false},
		{".hidden", false},
		{"_registry.json", false},
		{"_registry", false},
		{"a/b", false},
		{"../etc", false},
		{"/abs", false},
		{`a\b`, false},
		{"a b", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"tab\t", false},
		{"a:b", false},
		{"a*", false},
		{"\u202eevil", false}, // right-to-left override
		{"caf\u00e9\u0301", false},
	}
	for _, tt := range tests {
		t.Run(strings.ToValidUTF8(tt.id, "?"), func(t *testing.T) {
			err := envelope.ValidateAgentID(tt.id)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, envelope.ErrBadAgentID)
		})
	}
}

func TestNewIDIsOwnID(t *testing.T) {
	a, b := envelope.NewID(), envelope.NewID()
	assert.NotEqual(t, a, b)
	assert.True(t, envelope.IsOwnID(a))
	assert.Less(t, a, b, "ids sort by creation")
}

func TestIsOwnID(t *testing.T) {
	v7 := envelope.NewID()
	tests := []struct {
		id   string
		want bool
	}{
		{v7, true},
		{"msg_1745659200_researcher", false},
		{uuid.NewString(), false}, // version 4
		{"urn:uuid:" + v7, false},
		{"{" + v7 + "}", false},
		{strings.ReplaceAll(v7, "-", ""), false},
		{v7[:35], false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, envelope.IsOwnID(tt.id), "IsOwnID(%q)", tt.id)
	}
}

var fileNamePattern = regexp.MustCompile(`^\d{13}_[^/]+_[0-9A-Za-z-]+\.msg\.json$`)

func TestFileName(t *testing.T) {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC))
	a := &envelope.Message{ID: envelope.NewID(), From: "coder", Timestamp: ts}
	b := &envelope.Message{ID: envelope.NewID(), From: "coder", Timestamp: ts}

	na, nb := envelope.FileName(a), envelope.FileName(b)
	assert.NotEqual(t, na, nb, "two messages in one millisecond")
	assert.True(t, strings.HasPrefix(na, "1777197600123_coder_"), na)
	assert.Regexp(t, fileNamePattern, na)
	assert.Equal(t, na, envelope.FileName(a), "the same message gets the same name")

	copyOfA := *a
	assert.Equal(t, na, envelope.FileName(&copyOfA), "a redelivery of the same message")
}

func TestFileNameManyInOneMillisecond(t *testing.T) {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC))
	seen := map[string]bool{}
	for range 10000 {
		name := envelope.FileName(&envelope.Message{ID: envelope.NewID(), From: "a", Timestamp: ts})
		require.False(t, seen[name], "duplicate %s", name)
		seen[name] = true
	}
}

func TestFileNameForeignIDsStayPlain(t *testing.T) {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC))
	for _, id := range []string{"msg_1745659200_researcher", "../../etc/passwd", "a/b\x00c", "研究员的消息", "x"} {
		name := envelope.FileName(&envelope.Message{ID: id, From: "researcher", Timestamp: ts})
		assert.Regexp(t, fileNamePattern, name, "id %q", id)
		assert.NotContains(t, name, "/")
		assert.True(t, strings.HasSuffix(name, envelope.MessageSuffix))
	}
}

// TestValidateAgentIDRefusesMixedScripts: an id whose letters mix
// scripts (a Cyrillic "с" in "сeo", which looks like "ceo") is refused,
// naming both scripts; ids of one script, with ASCII digits and '-', '_',
// '.', and Latin with the scripts of Japanese, Chinese or Korean, pass.
func TestValidateAgentIDRefusesMixedScripts(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		"ceo", "coder-2", "agent_1.v2", "Researcher", // nanobot's ids are ASCII
		"сео", "исследователь-2", // all Cyrillic
		"研究员", "研究员_1", "エージェント", "研究エージェント", "とうきょう研究", // Chinese, Japanese
		"연구원", "연구원-漢", "ㄅㄆ研究", // Korean, Bopomofo with Han
		"agent研究员", "bot-エージェント", "봇-bot", // Latin with Han, Kana or Hangul
		"αβγ", "ελληνικά-1", // all Greek
		"café", "naïve", // Latin with accents
	} {
		assert.NoError(t, envelope.ValidateAgentID(id), id)
	}
	for _, tt := range []struct{ id, want string }{
		{"сeo", "mixes Cyrillic and Latin letters"},    // Cyrillic с, Latin e o
		{"ceо", "mixes Latin and Cyrillic letters"},    // Latin c e, Cyrillic о
		{"pаypal", "mixes Latin and Cyrillic letters"}, // Cyrillic а
		{"αdmin", "mixes Greek and Latin letters"},
		{"エージェント한", "mixes Katakana and Hangul letters"},
		{"ㄅㄆエ", "mixes Bopomofo and Katakana letters"},
		{"agent٣", "mixes Latin and Arabic letters"}, // an Arabic-Indic digit
	} {
		err := envelope.ValidateAgentID(tt.id)
		require.Error(t, err, tt.id)
		assert.ErrorIs(t, err, envelope.ErrBadAgentID)
		assert.Contains(t, err.Error(), tt.want, tt.id)
		assert.Contains(t, err.Error(), "use the letters of one script", tt.id)
	}
}
