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
)

// oldSubjects are the subjects of a stream made before priority messages.
var oldSubjects = []string{"mailbox.*.inbox.*", "mailbox.*.dead"}

// createStream creates stream MAILBOX with subjects, as an administrator
// or an older version would have.
func createStream(t *testing.T, js jetstream.JetStream, subjects []string) {
	t.Helper()
	_, err := js.CreateStream(waitCtx(t), jetstream.StreamConfig{Name: "MAILBOX", Subjects: subjects,
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: time.Minute})
	require.NoError(t, err)
}

// TestExistingStreamGainsPrioritySubjects: opening the store on a stream
// that lacks the priority subjects adds them, keeping the rest of its
// configuration and the messages it holds; a stream whose subjects cover
// them already is left as it is.
func TestExistingStreamGainsPrioritySubjects(t *testing.T) {
	for _, tt := range []struct {
		name      string
		subjects  []string
		wantAfter []string
	}{
		{"made before priority", oldSubjects, append(oldSubjects, "mailbox.*.priority.*")},
		{"wider subjects", []string{"mailbox.>"}, []string{"mailbox.>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "")
			js, err := jetstream.New(ts.connect(t))
			require.NoError(t, err)
			createStream(t, js, tt.subjects)
			old := storetest.NewMessage("alice", "bob", "from before")
			data, err := envelope.Encode(old)
			require.NoError(t, err)
			publishRaw(t, ts, "mailbox.bob.inbox.alice", data)

			be := ts.open(t, nil)
			stream, err := js.Stream(waitCtx(t), "MAILBOX")
			require.NoError(t, err)
			cfg := stream.CachedInfo().Config
			assert.Equal(t, tt.wantAfter, cfg.Subjects)
			assert.Equal(t, time.Minute, cfg.Duplicates, "the rest of the configuration is kept")

			u := withPriority(storetest.NewMessage("carol", "bob", "now"), 3)
			require.NoError(t, be.Deliver(waitCtx(t), u))
			in, err := be.OpenInbox(waitCtx(t), "bob")
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
	url := startAgentsServer(t)
	admin, _ := connectAs(t, url, "admin", "admin-secret")
	defer admin.Close()
	js, err := jetstream.New(admin)
	require.NoError(t, err)
	createStream(t, js, oldSubjects)

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
