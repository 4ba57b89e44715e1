package storetest

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// runArtifacts checks the artifact store (driver.Artifacts through
// store.Artifacts): what one process stores another reads, byte for byte,
// also when it is bigger than one chunk; bytes that do not hash to their
// digest are refused and nothing is stored; storing again keeps the
// artifact and renews its time; a delete leaves what was stored after its
// bound; stored bytes that changed are refused when read; and a sweep
// removes what no message needs and keeps what a waiting message names.
func (s *suite) runArtifacts(t *testing.T) {
	w := s.world(t)
	one, other := w.open(t, nil), w.open(t, nil)
	Need(t, s.feat.Artifacts(), one)
	ctx := testkit.Ctx(t)
	a, err := one.Artifacts()
	require.NoError(t, err)
	b, err := other.Artifacts()
	require.NoError(t, err)

	data := make([]byte, 300<<10+17) // more than two chunks of NATS's object store
	_, err = rand.Read(data)
	require.NoError(t, err)
	digest := envelope.Digest(data)
	info := store.Artifact{Digest: digest, Size: int64(len(data)), Name: "q3.bin", MimeType: "application/octet-stream"}
	put, err := a.Put(ctx, info, bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, digest, put.Digest)
	assert.Equal(t, int64(len(data)), put.Size)

	rc, got, err := b.Open(ctx, digest)
	require.NoError(t, err, "another process reads it")
	read, err := io.ReadAll(rc)
	require.NoError(t, rc.Close())
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, read), "the same bytes")
	assert.Equal(t, "q3.bin", got.Name)
	assert.Equal(t, int64(len(data)), got.Size)

	// Bytes that are not those of their digest: refused, nothing stored.
	wrong := store.Artifact{Digest: envelope.Digest([]byte("hello")), Size: 5}
	_, err = a.Put(ctx, wrong, bytes.NewReader([]byte("jello")))
	require.ErrorIs(t, err, store.ErrArtifactCorrupt)
	_, _, err = b.Open(ctx, wrong.Digest)
	require.ErrorIs(t, err, store.ErrNoArtifact, "nothing was stored")

	// Stored again: kept, its time renewed.
	again, err := b.Put(ctx, info, bytes.NewReader(data))
	require.NoError(t, err)
	assert.False(t, again.Stored.Before(put.Stored), "stored again later")
	list, err := b.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, digest, list[0].Digest)

	// A delete bounded before the last store leaves it; one after removes it.
	empty := store.Artifact{Digest: envelope.Digest(nil), Size: 0, Name: "empty"}
	_, err = a.Put(ctx, empty, bytes.NewReader(nil))
	require.NoError(t, err, "an empty file is an artifact too")
	rc, _, err = b.Open(ctx, empty.Digest)
	require.NoError(t, err)
	read, err = io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	assert.Empty(t, read)

	s.checkCorruptArtifact(t, w, a)
	s.checkArtifactSweep(t, one, a)
	s.checkArtifactFollowsTask(t, one, a)
}

// checkCorruptArtifact: stored bytes changed behind the store's back are
// refused at their end, with an error that says so.
func (s *suite) checkCorruptArtifact(t *testing.T, w *world, a *store.Artifacts) {
	if w.h.CorruptArtifact == nil {
		return
	}
	ctx := testkit.Ctx(t)
	data := []byte("the report, as written")
	digest := envelope.Digest(data)
	_, err := a.Put(ctx, store.Artifact{Digest: digest, Size: int64(len(data))}, bytes.NewReader(data))
	require.NoError(t, err)
	w.h.CorruptArtifact(t, digest, []byte("the report, as changed"))
	rc, _, err := a.Open(ctx, digest)
	require.NoError(t, err)
	defer rc.Close()
	_, err = io.ReadAll(rc)
	require.ErrorIs(t, err, store.ErrArtifactCorrupt)
	assert.Contains(t, err.Error(), "artifact "+digest+" is corrupt")
}

// checkArtifactSweep: of two old artifacts, the one a waiting message
// names stays and the other goes; then a bound of 1 byte removes nothing
// a waiting message needs.
func (s *suite) checkArtifactSweep(t *testing.T, be *store.Store, a *store.Artifacts) {
	if !be.Has(store.CanBrowse) {
		return
	}
	ctx := testkit.Ctx(t)
	kept, gone := []byte("named by a waiting message"), []byte("named by nobody")
	for _, d := range [][]byte{kept, gone} {
		_, err := a.Put(ctx, store.Artifact{Digest: envelope.Digest(d), Size: int64(len(d))}, bytes.NewReader(d))
		require.NoError(t, err)
	}
	m := NewMessage("writer", "reader", "see the file")
	m.Content.Parts = append(m.Content.Parts, envelope.Part{Type: envelope.PartFile, Name: "k.txt",
		Size: int64(len(kept)), SHA256: envelope.Digest(kept), URI: envelope.ArtifactURI(envelope.Digest(kept))})
	Deliver(t, be, m)

	later := time.Now().Add(3 * time.Hour) // both are older than MinAge by then
	rep, err := a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, rep.Removed, 1)
	_, _, err = a.Open(ctx, envelope.Digest(gone))
	assert.ErrorIs(t, err, store.ErrNoArtifact, "no message names it")
	rc, _, err := a.Open(ctx, envelope.Digest(kept))
	require.NoError(t, err, "a waiting message names it")
	rc.Close()

	_, err = a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour, MaxBytes: 1})
	require.NoError(t, err)
	rc, _, err = a.Open(ctx, envelope.Digest(kept))
	require.NoError(t, err, "the bound spares what a waiting message needs")
	rc.Close()

	// Sweeps share the work: within Every of one, the next is skipped.
	first, err := a.Sweep(ctx, store.ArtifactRetention{Now: later, Every: time.Hour})
	require.NoError(t, err)
	next, err := a.Sweep(ctx, store.ArtifactRetention{Now: later.Add(time.Minute), Every: time.Hour})
	require.NoError(t, err)
	if be.Has(store.CanUpdateRecords) {
		assert.False(t, first.Skipped)
		assert.True(t, next.Skipped)
	}
}

// checkArtifactFollowsTask: an artifact a task's message names stays
// while its thread goes on (another message of the thread is not
// archived), goes once the thread's messages are swept into their tasks'
// archives; one named by a handled message that is not archived stays,
// unless the store is over its bound.
func (s *suite) checkArtifactFollowsTask(t *testing.T, be *store.Store, a *store.Artifacts) {
	if !be.Has(store.CanBrowse) {
		return
	}
	in := OpenInbox(t, be, "follower")
	if !Has(t, s.feat.Sweep(), in) {
		return
	}
	ctx := testkit.Ctx(t)
	report, notes := []byte("the report of task art-1"), []byte("notes named by a handled message")
	put := func(d []byte) {
		_, err := a.Put(ctx, store.Artifact{Digest: envelope.Digest(d), Size: int64(len(d))}, bytes.NewReader(d))
		require.NoError(t, err)
	}
	put(report)
	file := func(d []byte) envelope.Part {
		return envelope.Part{Type: envelope.PartFile, Size: int64(len(d)), SHA256: envelope.Digest(d), URI: envelope.ArtifactURI(envelope.Digest(d))}
	}
	task := NewMessage("lead", "follower", "summarise the report")
	task.Type, task.Task, task.ThreadID = envelope.TypeTask, &envelope.Task{ID: "art-1", State: envelope.StatePending}, "th-art"
	task.Content.Parts = append(task.Content.Parts, file(report))
	followUp := NewMessage("lead", "follower", "and the appendix")
	followUp.TaskID, followUp.ThreadID = "art-2", "th-art"
	Deliver(t, be, task, followUp)

	ExpectNext(t, in, task.ID)
	_, err := in.SweepTask(ctx, "art-1")
	require.NoError(t, err)
	later := time.Now().Add(3 * time.Hour)
	_, err = a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour})
	require.NoError(t, err)
	rc, _, err := a.Open(ctx, envelope.Digest(report))
	require.NoError(t, err, "its task is archived, but its thread goes on")
	rc.Close()

	ExpectNext(t, in, followUp.ID)
	_, err = in.SweepTask(ctx, "art-2")
	require.NoError(t, err)
	_, err = a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour})
	require.NoError(t, err)
	_, _, err = a.Open(ctx, envelope.Digest(report))
	assert.ErrorIs(t, err, store.ErrNoArtifact, "swept with its thread")

	put(notes)
	handled := NewMessage("lead", "follower", "see the notes")
	handled.Content.Parts = append(handled.Content.Parts, file(notes))
	Deliver(t, be, handled)
	ExpectNext(t, in, handled.ID)
	_, err = a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour})
	require.NoError(t, err)
	rc, _, err = a.Open(ctx, envelope.Digest(notes)) // older than MinAge at later, named by a handled message
	require.NoError(t, err, "a handled message not archived names it")
	rc.Close()
	_, err = a.Sweep(ctx, store.ArtifactRetention{Now: later, MinAge: time.Hour, MaxBytes: 1})
	require.NoError(t, err)
	_, _, err = a.Open(ctx, envelope.Digest(notes))
	assert.ErrorIs(t, err, store.ErrNoArtifact, "over the bound, what no waiting message needs goes")
}
