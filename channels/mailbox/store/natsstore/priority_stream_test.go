package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// oldSubjects are the subjects of a stream made before priority messages,
// under prefix.
func oldSubjects(prefix string) []string { return []string{prefix + ".*.inbox.*", prefix + ".*.dead"} }

// createStream creates stream name with subjects, as an administrator or
// an older version would have.
func createStream(t *testing.T, js jetstream.JetStream, name string, subjects []string) {
	t.Helper()
	_, err := js.CreateStream(testkit.Ctx(t), jetstream.StreamConfig{Name: name, Subjects: subjects,
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: time.Minute})
	require.NoError(t, err)
}

// TestExistingStreamGainsPrioritySubjects: opening the store on a stream
// that lacks the priority subjects adds them, keeping the rest of its
// configuration and the messages it holds; a stream whose subjects cover
// them already is left as it is.
func TestExistingStreamGainsPrioritySubjects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		subjects  func(prefix string) []string
		wantAfter func(prefix string) []string
	}{
		{"made before priority", oldSubjects,
			func(p string) []string { return append(oldSubjects(p), p+".*.priority.*") }},
		{"wider subjects", func(p string) []string { return []string{p + ".>"} },
			func(p string) []string { return []string{p + ".>"} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := sharedServer(t)
			js, err := jetstream.New(ts.Connect(t))
			require.NoError(t, err)
			createStream(t, js, ts.ns.Stream, tt.subjects(ts.ns.SubjectPrefix))
			old := storetest.NewMessage("alice", "bob", "from before")
			data, err := envelope.Encode(old)
			require.NoError(t, err)
			publishRaw(t, ts, ts.subject("bob.inbox.alice"), data)

			be := ts.open(t, nil)
			stream, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
			require.NoError(t, err)
			cfg := stream.CachedInfo().Config
			assert.Equal(t, tt.wantAfter(ts.ns.SubjectPrefix), cfg.Subjects)
			assert.Equal(t, time.Minute, cfg.Duplicates, "the rest of the configuration is kept")

			u := withPriority(storetest.NewMessage("carol", "bob", "now"), 3)
			require.NoError(t, be.Deliver(testkit.Ctx(t), u))
			in, err := be.OpenInbox(testkit.Ctx(t), "bob")
			require.NoError(t, err)
			defer in.Close()
			id, _ := nextID(t, in, true)
			assert.Equal(t, u.ID, id)
			id, _ = nextID(t, in, true)
			assert.Equal(t, old.ID, id)
		})
	}
}

// TestExistingStreamNotEditable: an agent whose user may not edit the
// stream, opening a stream that lacks the priority subjects, gets an error
// that names them and says how an administrator adds them.
func TestExistingStreamNotEditable(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	admin, _ := connectAs(t, url, "admin", "admin-secret")
	defer admin.Close()
	js, err := jetstream.New(admin)
	require.NoError(t, err)
	createStream(t, js, "MAILBOX", oldSubjects("mailbox"))

	nc, cfg := connectAs(t, url, "coder", "coder-secret")
	o := cfg.Options(nc)
	o.OwnConn = true
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second) // a denied request gets no answer
	defer cancel()
	_, err = natsstore.Open(ctx, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stream MAILBOX lacks the subjects mailbox.*.priority.*")
	assert.Contains(t, err.Error(), "nats stream edit MAILBOX --subjects mailbox.*.inbox.*,mailbox.*.dead,mailbox.*.priority.*")
}
