package mailbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
)

// A file attached to a delegated task by the tool travels as an artifact:
// the worker's model reads its name, type, size and uri (no path of the
// lead's machine); read_artifact fetches it into the worker's workspace,
// verified, with its text. Bytes changed in the store are refused with a
// clear error and leave no file. nanobot's bare path still arrives as a
// path, and read_artifact gives it back.
func TestFileAttachedToTaskIsFetchedIntoTheWorkspace(t *testing.T) {
	e := newEnv(t)
	wsLead, wsWorker := t.TempDir(), t.TempDir()
	lead := e.start(t, e.config("lead"), mailbox.Options{Workspace: wsLead})
	worker := e.start(t, e.config("worker"), mailbox.Options{Workspace: wsWorker})
	report := "# Q3\nrevenue up 4%\n"
	require.NoError(t, os.WriteFile(filepath.Join(wsLead, "q3.md"), []byte(report), 0o600))
	ctx := context.Background()

	_, err := tools.DelegateTask.Run(ctx, tools.Caller{Mailbox: lead.Channel}, tools.DelegateArgs{To: "worker",
		Task: "summarise the report", Files: []string{"q3.md"}})
	require.NoError(t, err)
	_, err = tools.DelegateTask.Run(ctx, tools.Caller{Mailbox: lead.Channel}, tools.DelegateArgs{To: "worker",
		Task: "x", Files: []string{"missing.md"}})
	require.ErrorContains(t, err, "nothing was sent", "a file that cannot be attached stops the send")

	in := worker.take(t)
	defer in.Done()
	digest := envelope.Digest([]byte(report))
	uri := envelope.ArtifactURI(digest)
	require.NotNil(t, in.Note)
	assert.Contains(t, in.Note.Text, "file: q3.md (text/markdown, 19 bytes, "+uri+"; read it with read_artifact)")
	assert.Equal(t, []string{filepath.Join(wsLead, "q3.md")}, in.Media, "one machine: the lead's path is a file here too")

	turn := &agent.Turn{Inbound: in}
	read := func(file string) (tools.Result, error) {
		return tools.ReadArtifact.Run(ctx, tools.Caller{Mailbox: worker.Channel, Turn: turn}, tools.ReadArgs{File: file})
	}
	res, err := read("q3.md")
	require.NoError(t, err)
	got := res.Data.(tools.Fetched)
	assert.Equal(t, filepath.Join(wsWorker, mailbox.ArtifactsDir, digest[:16], "q3.md"), got.Path)
	assert.Equal(t, report, got.Text)
	assert.Contains(t, res.Text, "its content:\n"+report)
	data, err := os.ReadFile(got.Path)
	require.NoError(t, err)
	assert.Equal(t, report, string(data))
	_, err = read("other.md")
	assert.ErrorContains(t, err, `no file "other.md" in the message (its files: q3.md)`)

	// The stored bytes changed (a fault, a hand): refused, no file left.
	require.NoError(t, os.WriteFile(filepath.Join(e.root, "_artifacts", "sha256", digest), []byte("# Q3\nrevenue up 9%\n"), 0o600))
	require.NoError(t, os.RemoveAll(filepath.Join(wsWorker, mailbox.ArtifactsDir)))
	_, err = read(uri)
	require.Error(t, err)
	assert.True(t, errors.Is(err, store.ErrArtifactCorrupt), "%v", err)
	assert.Contains(t, err.Error(), "artifact "+digest+" is corrupt")
	entries, _ := os.ReadDir(filepath.Join(wsWorker, mailbox.ArtifactsDir, digest[:16]))
	assert.Empty(t, entries, "nothing of the corrupt artifact is left")

	// nanobot's file part: a bare path, read as before.
	plain := filepath.Join(t.TempDir(), "notes.txt")
	require.NoError(t, os.WriteFile(plain, []byte("n"), 0o600))
	m := msg("nanobot", "worker", envelope.TypeMessage, "see the notes")
	m.Content.Parts = append(m.Content.Parts, envelope.FilePart(plain))
	e.deliver(t, m)
	in2 := worker.consume(t)
	assert.Equal(t, []string{plain}, in2.Media)
	require.NotNil(t, in2.Note)
	assert.Contains(t, in2.Note.Text, "file: "+plain)
	res, err = tools.ReadArtifact.Run(ctx, tools.Caller{Mailbox: worker.Channel, Turn: &agent.Turn{Inbound: in2}},
		tools.ReadArgs{File: plain})
	require.NoError(t, err)
	assert.Equal(t, plain, res.Data.(tools.Fetched).Path)
}

// Two agents reserve the same path: one wins; the other is refused and
// told who holds it until when, and sees it in file_reservations, until
// the lease expires (an injected clock); then it gets it.
func TestReservationOneWinsOtherSeesHolderUntilExpiry(t *testing.T) {
	e := newEnv(t)
	coder := e.startAgent(t, "coder")
	critic := e.startAgent(t, "critic")
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	ctx := context.Background()
	reserve := func(m *member, path string) (tools.Result, error) {
		return tools.ReserveFiles.Run(ctx, tools.Caller{Mailbox: m.Channel, Now: clock},
			tools.ReserveArgs{Paths: []string{path}, TTLSeconds: 600, Reason: "rewrite"})
	}

	_, err := reserve(coder, "src/parser/**")
	require.NoError(t, err)
	_, err = reserve(critic, "src/parser/lexer.go")
	require.ErrorIs(t, err, store.ErrReserved)
	assert.Contains(t, err.Error(), "src/parser/lexer.go is reserved by coder (exclusive, src/parser/**, until 2030-01-02T03:14:05Z: rewrite)")

	list, err := tools.FileReservations.Run(ctx, tools.Caller{Mailbox: critic.Channel, Now: clock},
		tools.ListReservationsArgs{Path: "src/parser/lexer.go"})
	require.NoError(t, err)
	held := list.Data.(tools.Reserved).Reservations
	require.Len(t, held, 1)
	assert.Equal(t, "coder", held[0].Agent)

	now = now.Add(599 * time.Second)
	_, err = reserve(critic, "src/parser/lexer.go")
	require.ErrorIs(t, err, store.ErrReserved, "still held a second before it expires")

	now = now.Add(time.Second)
	res, err := reserve(critic, "src/parser/lexer.go")
	require.NoError(t, err, "the lease expired")
	assert.True(t, strings.HasPrefix(res.Text, "reserved src/parser/lexer.go (critic, exclusive"), res.Text)
	_, err = reserve(coder, "src/**")
	assert.ErrorContains(t, err, "reserved by critic")
	rel, err := tools.ReleaseFiles.Run(ctx, tools.Caller{Mailbox: critic.Channel, Now: clock}, tools.ReleaseArgs{})
	require.NoError(t, err)
	assert.Len(t, rel.Data.(tools.Reserved).Reservations, 1)
	_, err = reserve(coder, "src/**")
	assert.NoError(t, err, "released")
}
