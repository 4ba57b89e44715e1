package envelope_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

const helloDigest = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")

// artifactMessage is what switchboard writes for a message with
// artifacts: one in the artifact store (its uri, and the sender's path
// nanobot reads), one inline, and a nanobot path.
func artifactMessage() *envelope.Message {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456789, time.UTC))
	return &envelope.Message{
		ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a61", From: "writer", To: "reviewer", Timestamp: ts,
		Type: envelope.TypeTask, TTL: 2, Trace: []string{"writer"},
		Task: &envelope.Task{ID: "task-q3", State: envelope.StatePending},
		Content: envelope.Content{Parts: []envelope.Part{
			envelope.TextPart("review the Q3 report"),
			{Type: envelope.PartFile, Path: "/srv/reports/q3.md", Name: "q3.md", MimeType: "text/markdown",
				Size: 5, SHA256: helloDigest, URI: envelope.ArtifactURI(helloDigest)},
			envelope.InlinePart("chart.csv", "text/csv", []byte("a,b\n1,2")),
			envelope.FilePart("/srv/reports/q3-notes.md"),
		}},
	}
}

func TestGoldenArtifactMessage(t *testing.T) {
	const name = "switchboard_artifact.json"
	got, err := envelope.Encode(artifactMessage())
	require.NoError(t, err)
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), string(got), "encoding changed; if on purpose, run with -update")
	back, err := envelope.DecodeBytes(got)
	require.NoError(t, err)
	assert.Equal(t, artifactMessage().Content, back.Content)
}

// A peer's parts (another switchboard version, an A2A bridge) with keys
// this version does not know: every part decodes, the unknown keys are
// kept and written back, nanobot's plain path reads as before.
func TestPeerArtifactPartsKeepUnknownKeys(t *testing.T) {
	data := readTestdata(t, "peer_artifact_parts.json")
	m, err := envelope.DecodeBytes(data)
	require.NoError(t, err)
	parts := m.Content.Parts
	require.Len(t, parts, 4)
	assert.Equal(t, envelope.FilePart("/srv/reports/q3-notes.md"), parts[1], "nanobot's file part, as before")
	assert.False(t, parts[1].IsArtifact())

	art := parts[2]
	assert.True(t, art.IsArtifact())
	assert.Equal(t, "q3.md", art.Name)
	assert.Equal(t, "text/markdown", art.MimeType)
	assert.Equal(t, int64(5), art.Size)
	assert.Equal(t, helloDigest, art.SHA256)
	assert.Equal(t, envelope.ArtifactURI(helloDigest), art.URI)
	assert.Equal(t, map[string]json.RawMessage{"metadata": json.RawMessage(`{"pages":12,"lang":"en"}`),
		"x-signed-by": json.RawMessage(`"writer"`)}, art.Extra)

	inline := parts[3]
	assert.Equal(t, []byte("a,b\n1,2"), inline.Inline)
	assert.Equal(t, map[string]json.RawMessage{"description": json.RawMessage(`"revenue by month"`)}, inline.Extra)

	out, err := envelope.EncodeCompact(m)
	require.NoError(t, err)
	var wire struct {
		Content struct {
			Parts []map[string]any `json:"parts"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(out, &wire))
	assert.Equal(t, map[string]any{"pages": float64(12), "lang": "en"}, wire.Content.Parts[2]["metadata"], "kept")
	assert.Equal(t, "writer", wire.Content.Parts[2]["x-signed-by"])
	assert.Equal(t, "revenue by month", wire.Content.Parts[3]["description"])
	assert.Equal(t, "YSxiCjEsMg==", wire.Content.Parts[3]["data"], "inline bytes as base64")
	again, err := envelope.EncodeCompact(m)
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again), "the same encoding every time")
	assert.Contains(t, string(out), `{"type":"file","path":"/srv/reports/q3.md","name":"q3.md","mime_type":"text/markdown","size":5,"sha256":"`+helloDigest+`","uri":"artifact://sha256/`+helloDigest+`","metadata":{"pages":12,"lang":"en"},"x-signed-by":"writer"}`,
		"known keys in their order, then the unknown ones sorted")
}

func TestArtifactPartsRefused(t *testing.T) {
	part := func(p string) string {
		return `{"id":"m","from":"a","to":"b","type":"message","content":{"parts":[` + p + `]}}`
	}
	big := strings.Repeat("A", (envelope.MaxInlineBytes+3)/3*4+4)
	tests := []struct{ name, input, err string }{
		{"short digest", part(`{"type":"file","sha256":"abc"}`), `content.parts[0]: invalid sha256 digest "abc": want 64 lower-case hex digits`},
		{"upper-case digest", part(`{"type":"file","sha256":"` + strings.ToUpper(helloDigest) + `"}`), "want 64 lower-case hex digits"},
		{"negative size", part(`{"type":"file","uri":"x","size":-1}`), "size must not be negative"},
		{"fractional size", part(`{"type":"file","size":1.5}`), `field "content.parts.size": want int64, got number 1.5`},
		{"inline corrupted", part(`{"type":"file","sha256":"` + helloDigest + `","data":"aGVsbG8h"}`), "inline data does not match its sha256 " + helloDigest},
		{"inline size wrong", part(`{"type":"file","size":3,"data":"aGVsbG8="}`), "inline data of 5 bytes, but size says 3"},
		{"inline and uri", part(`{"type":"file","uri":"artifact://sha256/` + helloDigest + `","data":"aGVsbG8="}`), "inline data and a uri: want one of them"},
		{"inline too big", part(`{"type":"file","data":"` + big + `"}`), "at most 65536 travel in a message"},
		{"inline not base64", part(`{"type":"file","data":"not base64!"}`), `field "content.parts.data": want []uint8, got string that is not base64`},
		{"inline on a text part", part(`{"type":"text","data":"aGVsbG8="}`), `field "content.parts.data": want map[string]interface {}, got string`},
		{"data an array", part(`{"type":"data","data":[1]}`), `field "content.parts.data": want map[string]interface {}, got array`},
		{"data holds a bad number", part(`{"type":"data","data":{"n":1e400}}`), `field "content.parts.data": want float64, got number 1e400`},
		{"uri and digest disagree", part(`{"type":"file","sha256":"` + helloDigest + `","uri":"artifact://sha256/` + strings.Repeat("0", 64) + `"}`), "names other bytes than its sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := envelope.DecodeBytes([]byte(tt.input))
			require.ErrorIs(t, err, envelope.ErrMalformed)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	// Other uris are a peer's business: kept, not fetched.
	m, err := envelope.DecodeBytes([]byte(part(`{"type":"file","uri":"https://example.com/q3.pdf","mime_type":"application/pdf"}`)))
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/q3.pdf", m.Content.Parts[0].URI)
}

func TestArtifactURI(t *testing.T) {
	d, err := envelope.ParseArtifactURI(envelope.ArtifactURI(helloDigest))
	require.NoError(t, err)
	assert.Equal(t, helloDigest, d)
	assert.Equal(t, helloDigest, envelope.Digest([]byte("hello")))
	for _, bad := range []string{"", "https://x/y", "artifact://sha256/", "artifact://sha256/" + helloDigest + "/..", "artifact://md5/" + helloDigest} {
		_, err := envelope.ParseArtifactURI(bad)
		assert.ErrorIs(t, err, envelope.ErrBadDigest, bad)
	}
	empty := envelope.InlinePart("empty", "", nil)
	assert.Equal(t, []byte{}, empty.Inline)
	out, err := json.Marshal(empty)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"file","data":"","path":"","name":"empty","size":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}`, string(out))
}
