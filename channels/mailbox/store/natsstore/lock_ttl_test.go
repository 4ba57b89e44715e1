package natsstore_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// bucketTTL is the TTL kv's bucket has now, as the server says.
func bucketTTL(t *testing.T, kv jetstream.KeyValue) time.Duration {
	t.Helper()
	st, err := kv.Status(testkit.Ctx(t))
	require.NoError(t, err)
	return st.TTL()
}

// TestLockTTLFollowsTheBucket: the lock bucket keeps the TTL it was made
// with. A store whose lockTtl is longer raises the bucket's to it when it
// first locks an inbox, and renews by it; one whose lockTtl is shorter
// leaves the bucket as it is, renews by its own TTL (more often than
// needed) and says that a lock expires after the bucket's.
func TestLockTTLFollowsTheBucket(t *testing.T) {
	ts := sharedServer(t)
	open := func(ttl time.Duration) *natsstore.Store {
		opts := ts.options(t, nil)
		opts.LockTTL = ttl
		return openWith(t, opts)
	}
	short := open(5 * time.Second) // makes the bucket, with its TTL
	locks := lockBucket(t, ts)
	require.Equal(t, 5*time.Second, bucketTTL(t, locks))

	lines := logLines{testkit.NewLog[string]()}
	opts := ts.options(t, nil)
	opts.LockTTL, opts.Logger = 20*time.Second, logTo(lines)
	long := openWith(t, opts)
	in, err := long.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	renew, expiry := natsstore.LockTTLs(in)
	if renew != 20*time.Second { // the raise has not landed yet
		assert.Equal(t, 5*time.Second, renew, "renewed by the bucket's TTL meanwhile")
		assert.Equal(t, 5*time.Second, expiry)
	}
	lines.WaitFor(t, "the raise", hasText("raised the lock bucket's TTL"))
	assert.Equal(t, 20*time.Second, bucketTTL(t, locks), "raised to the longer lockTtl")
	renew, expiry = natsstore.LockTTLs(in)
	assert.Equal(t, 20*time.Second, renew)
	assert.Equal(t, 20*time.Second, expiry)

	in2, err := short.OpenInbox(testkit.Ctx(t), "carol")
	require.NoError(t, err)
	defer in2.Close()
	renew, expiry = natsstore.LockTTLs(in2)
	assert.Equal(t, 5*time.Second, renew, "renewed by its own shorter TTL")
	assert.Equal(t, 20*time.Second, expiry, "expires after the bucket's")
	assert.Equal(t, 20*time.Second, bucketTTL(t, locks), "never lowered")

	_, err = short.OpenInbox(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy)
	assert.Contains(t, err.Error(), "expires after 20s")
}

// logLines is a logger's output, one record per line, to wait for.
type logLines struct{ *testkit.Log[string] }

func (l logLines) Write(p []byte) (int, error) {
	l.Add(string(p))
	return len(p), nil
}

// logTo is a logger writing to lines.
func logTo(lines logLines) *slog.Logger { return slog.New(slog.NewTextHandler(lines, nil)) }

// hasText matches a line holding text.
func hasText(text string) func(string) bool {
	return func(line string) bool { return strings.Contains(line, text) }
}

// TestLockTTLKeptWithoutPermission: with testdata/agents.conf, an agent
// may not change the lock bucket: one whose lockTtl is longer than the
// bucket's (made by the admin) warns, and renews by the bucket's TTL, so
// that its lock does not expire between renewals.
func TestLockTTLKeptWithoutPermission(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	nc, cfg := connectAs(t, url, "admin", "admin-secret")
	o := cfg.Options(nc)
	o.OwnConn, o.LockTTL = true, 5*time.Second
	openWith(t, o) // makes the buckets, the lock bucket with a TTL of 5 s

	nc, cfg = connectAs(t, url, "coder", "coder-secret")
	require.Equal(t, 60.0, cfg.LockTTL, "the default")
	lines := logLines{testkit.NewLog[string]()}
	o = cfg.Options(nc)
	o.OwnConn, o.Logger = true, logTo(lines)
	coder := openWith(t, o)
	in, err := coder.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	defer in.Close()
	refused := lines.WaitFor(t, "the refusal", hasText("the lock bucket keeps its shorter TTL"))
	assert.Contains(t, refused, "Permissions Violation")
	renew, expiry := natsstore.LockTTLs(in)
	assert.Equal(t, 5*time.Second, renew)
	assert.Equal(t, 5*time.Second, expiry)

	adminConn, _ := connectAs(t, url, "admin", "admin-secret")
	js, err := jetstream.New(adminConn)
	require.NoError(t, err)
	kv, err := js.KeyValue(testkit.Ctx(t), "mailbox-locks")
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, bucketTTL(t, kv), "unchanged")
}

// TestLockTTLOfBucketWithoutOne: a lock bucket an administrator made
// without a TTL is left as it is (the store raises only a shorter one);
// the store warns that a killed holder's lock then stays, renews by
// lockTtl, and says so to a second opener.
func TestLockTTLOfBucketWithoutOne(t *testing.T) {
	ts := sharedServer(t)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	locks, err := js.CreateKeyValue(testkit.Ctx(t), jetstream.KeyValueConfig{Bucket: ts.ns.LockBucket})
	require.NoError(t, err)

	lines := logLines{testkit.NewLog[string]()}
	opts := ts.options(t, nil)
	opts.Logger = logTo(lines)
	st := openWith(t, opts)
	in, err := st.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	lines.WaitFor(t, "the warning", hasText("the lock bucket has no TTL"))
	renew, expiry := natsstore.LockTTLs(in)
	assert.Equal(t, opts.LockTTL, renew)
	assert.Zero(t, expiry, "never expires")
	assert.Zero(t, bucketTTL(t, locks), "left as it is")
	_, err = st.OpenInbox(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy)
	assert.Contains(t, err.Error(), "stays until removed: the lock bucket has no TTL")
}
