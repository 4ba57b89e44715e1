package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Two agents reserve the same path from two processes: the first wins;
// the second is refused (exit 1), told who holds it until when, and sees
// it in reservations; once released, the second gets it.
func TestReserveOneWinsTheOtherSeesTheHolder(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	out := s.ok("reserve", "--as", "coder", "--ttl", "30m", "--reason", "parser rewrite", "src/parser/**")
	assert.Regexp(t, `(?m)^src/parser/\*\* +coder +exclusive +in (29|30)m`, out)

	r := s.run("reserve", "--as", "critic", "src/parser/lexer.go")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `src/parser/lexer.go is reserved by coder \(exclusive, src/parser/\*\*, until \S+: parser rewrite\)`, r.stderr)

	lines := decodeLines(t, s.ok("reservations", "src/parser/lexer.go", "--json"))
	require.Len(t, lines, 1)
	assert.Equal(t, "coder", lines[0]["agent"])
	assert.Equal(t, true, lines[0]["exclusive"])

	assert.Equal(t, 1, s.run("reserve", "--as", "critic", "--shared", "docs/api.md", "src/parser/lexer.go", "--ttl", "1m").code,
		"a shared reservation is refused beside an exclusive one")
	assert.Empty(t, decodeLines(t, s.ok("reservations", "docs/api.md", "--json")), "all or nothing: docs/api.md is not reserved either")
	assert.Regexp(t, `(?m)^src/parser/\*\* +coder`, s.ok("release", "--as", "coder"))
	assert.Regexp(t, `(?m)^src/parser/lexer.go +critic +exclusive`, s.ok("reserve", "--as", "critic", "src/parser/lexer.go"))
	assert.Equal(t, 2, s.run("reserve", "--as", "critic", "--ttl", "0s", "x").code, "a bad --ttl is a usage error")
}

// send --file stores the file; artifacts lists it; artifact get copies it
// out, and refuses it once its stored bytes changed.
func TestArtifactsListAndGet(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	file := filepath.Join(s.home, "plan.txt")
	require.NoError(t, os.WriteFile(file, []byte("step one\n"), 0o600))
	s.sendID("--from", "lead", "--to", "coder", "--new", "--text", "the plan", "--file", file)
	digest := envelope.Digest([]byte("step one\n"))

	lines := decodeLines(t, s.ok("artifacts", "--json"))
	require.Len(t, lines, 1)
	assert.Equal(t, digest, lines[0]["sha256"])
	assert.Equal(t, "plan.txt", lines[0]["name"])
	assert.Equal(t, "text/plain", lines[0]["mime_type"])
	assert.Equal(t, envelope.ArtifactURI(digest), lines[0]["uri"])
	assert.Regexp(t, `(?m)^`+digest[:16]+` +9 +plan.txt +text/plain`, s.ok("artifacts"))

	assert.Equal(t, "plan.txt\n", s.ok("artifact", "get", envelope.ArtifactURI(digest)))
	got, err := os.ReadFile(filepath.Join(s.home, "plan.txt"))
	require.NoError(t, err)
	assert.Equal(t, "step one\n", string(got))

	require.NoError(t, os.WriteFile(filepath.Join(s.root, "_artifacts", "sha256", digest), []byte("step two\n"), 0o600))
	r := s.run("artifact", "get", digest, "--out", "copy.txt")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "artifact "+digest+" is corrupt")
	assert.NoFileExists(t, filepath.Join(s.home, "copy.txt"))
	assert.Equal(t, 2, s.run("artifact", "get", "artifact://md5/x").code)
}
