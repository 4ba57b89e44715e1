package natsstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Options configures a Store. Zero values take the defaults of
// DefaultConfig; Conn is required.
type Options struct {
	// Conn is the connection to use. Close closes it only with OwnConn.
	Conn    *nats.Conn
	OwnConn bool
	// Stream, SubjectPrefix, HistoryStream and the bucket names: see
	// Config.
	Stream         string
	HistoryStream  string
	SubjectPrefix  string
	RegistryBucket string
	PresenceBucket string
	StateBucket    string
	LockBucket     string
	// ArtifactsBucket is the object store of the artifacts (made on first
	// use).
	ArtifactsBucket string
	// AckWait, MaxDeliver, Replicas and LockTTL: see Config.
	AckWait    time.Duration
	MaxDeliver int
	Replicas   int
	LockTTL    time.Duration
	// HistoryMaxAge and HistoryMaxBytes bound the history stream (see
	// Config); 0 takes the default, a negative value sets no bound.
	HistoryMaxAge   time.Duration
	HistoryMaxBytes int64
	// NoHistory: no history stream and no republish (see
	// Config.History); Browse, ReadAudit and SweepTask then fail with
	// ErrNoHistory and the audit log is off whatever AuditLog says.
	NoHistory bool
	// AuditLog records the store's own events (claimed, processed,
	// quarantined, refused, duplicate, swept) in the audit log on the
	// history stream, besides those given to Record, in batches (see
	// auditLog). The sent entries are the history's copies of the
	// messages, whatever this says.
	AuditLog bool
	// Agent is the agent this store acts for, if one: the entries given
	// to Record go to <prefix>.<Agent>.audit, the one audit subject
	// per-agent permissions let it write (the store's own entries go to
	// that of the inbox they happened in). Empty: to the subject of the
	// agent that acted.
	Agent string
	// PresenceTTL is how long a presence key outlives its last heartbeat
	// (the mailbox's offlineAfter; default 30s).
	PresenceTTL time.Duration
	// DuplicateWindow is how long the stream remembers message ids to drop
	// a retried publish (default 2 minutes).
	DuplicateWindow time.Duration
	// MaxMessageBytes caps one encoded message (default 1 MiB).
	MaxMessageBytes int64
	// Prefetch is how many messages an inbox asks the server for at a
	// time (default 32). It pulls on while its queue waits, up to the
	// consumer's MaxAckPending (1,000 by default) handed out or queued;
	// the inbox keeps the queued ones from being redelivered.
	Prefetch int
	// AsyncAck acknowledges without waiting for the server's confirmation:
	// faster, but an acknowledgement lost in a crash redelivers the message
	// to the next owner of the inbox.
	AsyncAck bool
	// NoCreate opens only a store that exists, for reading: the stream and
	// the buckets are neither created nor changed, and Open fails with an
	// error wrapping driver.ErrNoStore when one of them is missing.
	NoCreate bool
	// Observer receives an Event for each message handled; may be nil.
	Observer driver.Observer
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// KeyFile is the credentials or nkey seed file the connection
	// authenticates with (Config.Credentials or Config.NKey), if any: its
	// user key is Agent's signing key (see CredentialSeed).
	KeyFile string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// FirstAnswerWait, if set, bounds Open's wait for the server's first
	// answer (whether the stream exists) apart from the rest, which the
	// context Open is given bounds: a server that does not answer at all
	// is reported soon, one that answers slowly (busy) is waited for.
	FirstAnswerWait time.Duration
}

func (o *Options) setDefaults() {
	d := DefaultConfig()
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Stream, d.Stream)
	def(&o.HistoryStream, d.HistoryStream)
	def(&o.SubjectPrefix, d.SubjectPrefix)
	def(&o.RegistryBucket, d.RegistryBucket)
	def(&o.PresenceBucket, d.PresenceBucket)
	def(&o.StateBucket, d.StateBucket)
	def(&o.LockBucket, d.LockBucket)
	def(&o.ArtifactsBucket, d.ArtifactsBucket)
	dur := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	dur(&o.AckWait, seconds(d.AckWait))
	dur(&o.LockTTL, seconds(d.LockTTL))
	dur(&o.PresenceTTL, 30*time.Second)
	dur(&o.DuplicateWindow, 2*time.Minute)
	if o.HistoryMaxAge == 0 {
		o.HistoryMaxAge = seconds(d.HistoryMaxAge)
	}
	if o.HistoryMaxBytes == 0 {
		o.HistoryMaxBytes = d.HistoryMaxBytes
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = d.MaxDeliver
	}
	if o.Replicas <= 0 {
		o.Replicas = d.Replicas
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 1 << 20
	}
	if o.Prefetch <= 0 {
		o.Prefetch = 32
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is the JetStream mailbox store. It is safe for concurrent use.
type Store struct {
	opts  Options
	names names
	nc    *nats.Conn
	js    jetstream.JetStream
	// reconnects ends a publish's wait at a reconnect (see publish).
	reconnects *reconnects
	stream     jetstream.Stream
	registry   jetstream.KeyValue
	presence   jetstream.KeyValue
	state      jetstream.KeyValue
	locks      jetstream.KeyValue
	lockTTL    lockTTLCache // the lock bucket's TTL, read at the first lock
	objects    objectStore  // the artifacts, opened on first use
	// audit buffers and publishes the audit entries; nil with the audit
	// log off.
	audit  *auditLog
	sweeps sweepIndexes
	// beats: the cards of the agents this store heartbeats (heartbeat.go).
	beats beats

	inboxes driver.InboxSet[*Inbox]
}

var (
	_ driver.Backend        = (*Store)(nil)
	_ driver.PresenceLister = (*Store)(nil)
)

// Open opens the store on opts.Conn, creating the stream and the buckets
// when they do not exist yet (which needs the permission to; with per-agent
// credentials an administrator creates them first, see docs/backends.md),
// unless opts.NoCreate.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Conn == nil {
		return nil, errors.New("natsstore: Options.Conn is required")
	}
	opts.setDefaults()
	js, err := jetstream.New(opts.Conn)
	if err != nil {
		return nil, fmt.Errorf("natsstore: %w", err)
	}
	if opts.Agent != "" {
		if err := envelope.ValidateAgentID(opts.Agent); err != nil {
			return nil, fmt.Errorf("natsstore: Options.Agent: %w", err)
		}
	}
	s := &Store{opts: opts, names: names{prefix: opts.SubjectPrefix}, nc: opts.Conn, js: js}
	if err := s.setUp(ctx); err != nil {
		if opts.OwnConn {
			opts.Conn.Close()
		}
		return nil, err
	}
	if opts.AuditLog && !opts.NoHistory {
		s.audit = newAuditLog(s)
	}
	s.reconnects = watchReconnects(s.nc)
	return s, nil
}

// streamMaxConsumers is the main stream's limit on consumers, set when
// the store creates it. Every agent that listens holds one or two (its
// inbox's, and its priority messages' once it gets one), and recent versions of nats-server give a
// stream that sets no limit of its own a default of 1,000
// (default_max_consumers), which 500 agents reach.
const streamMaxConsumers = 1 << 20

// setUp finds or creates the streams and the buckets. A new history
// stream comes before a new main stream, to take the copies of its first
// messages.
func (s *Store) setUp(ctx context.Context) error {
	o := s.opts
	first, cancel := ctx, context.CancelFunc(func() {})
	if o.FirstAnswerWait > 0 {
		first, cancel = context.WithTimeout(ctx, o.FirstAnswerWait)
	}
	stream, err := s.js.Stream(first, o.Stream)
	cancel()
	history := false // set up already
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
		return fmt.Errorf("natsstore: JetStream is not enabled on the server at %s (start nats-server with -js, or add a jetstream block to its config): %w",
			s.nc.ConnectedUrlRedacted(), err)
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) && o.NoCreate {
		return fmt.Errorf("natsstore: stream %s: %w", o.Stream, driver.ErrNoStore)
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		cfg := jetstream.StreamConfig{
			Name: o.Stream, Subjects: s.names.streamSubjects(),
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
			Duplicates: o.DuplicateWindow, Replicas: o.Replicas, MaxConsumers: streamMaxConsumers,
			Description: "switchboard mailbox: inboxes and dead letters",
		}
		if !o.NoHistory {
			s.setUpHistory(ctx)
			history = true
			cfg.RePublish = s.names.republish()
		}
		stream, err = s.js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // created meanwhile
			stream, err = s.js.Stream(ctx, o.Stream)
		}
	}
	if err != nil {
		return fmt.Errorf("natsstore: stream %s: %w", o.Stream, err)
	}
	s.stream = stream
	if !o.NoCreate { // a reader changes nothing
		if err := s.addSubjects(ctx); err != nil {
			return err
		}
	}
	if !history && !o.NoHistory {
		s.setUpHistory(ctx)
	}
	if !o.NoCreate && !o.NoHistory {
		s.addRePublish(ctx)
	}
	buckets := []struct {
		kv  *jetstream.KeyValue
		cfg jetstream.KeyValueConfig
	}{
		{&s.registry, jetstream.KeyValueConfig{Bucket: o.RegistryBucket, Description: "switchboard agent cards"}},
		{&s.presence, jetstream.KeyValueConfig{Bucket: o.PresenceBucket, TTL: o.PresenceTTL,
			LimitMarkerTTL: max(o.PresenceTTL, time.Second), Description: "switchboard agents online"}},
		{&s.state, jetstream.KeyValueConfig{Bucket: o.StateBucket, Description: "switchboard agent records"}},
		{&s.locks, jetstream.KeyValueConfig{Bucket: o.LockBucket, TTL: o.LockTTL,
			Description: "switchboard inbox owners"}},
	}
	for _, b := range buckets {
		b.cfg.Storage, b.cfg.Replicas = jetstream.FileStorage, o.Replicas
		kv, err := s.js.KeyValue(ctx, b.cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) && o.NoCreate {
			return fmt.Errorf("natsstore: bucket %s: %w", b.cfg.Bucket, driver.ErrNoStore)
		}
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = s.js.CreateKeyValue(ctx, b.cfg)
			if errors.Is(err, jetstream.ErrBucketExists) {
				kv, err = s.js.KeyValue(ctx, b.cfg.Bucket)
			}
		}
		if err != nil {
			return fmt.Errorf("natsstore: bucket %s: %w", b.cfg.Bucket, err)
		}
		*b.kv = kv
	}
	return nil
}

// Close implements driver.Backend: it closes the open inboxes (their
// unacknowledged deliveries are released for redelivery), stores the
// buffered audit entries (waiting at most auditWait), flushes, and closes
// the connection if the store owns it.
func (s *Store) Close() error {
	first, err := s.inboxes.Close()
	if !first {
		return nil
	}
	s.lockTTL.stop()
	s.reconnects.stop()
	errs := []error{err}
	if s.audit != nil {
		s.audit.close()
	}
	if s.opts.OwnConn {
		errs = append(errs, s.nc.Drain())
	} else if !s.nc.IsClosed() {
		errs = append(errs, s.nc.Flush())
	}
	return errors.Join(errs...)
}

func (s *Store) checkOpen(ctx context.Context) error {
	if err := s.inboxes.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// emit reports ev to the audit log, when it is on, and to the Observer.
// The audit log only buffers the entry (see auditLog): it never waits
// for the server. A sent event goes to the Observer only: the history's
// copy of the message is its entry (see ReadAudit).
func (s *Store) emit(ev driver.Event) {
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	if s.audit != nil && ev.Kind != driver.EventSent {
		s.audit.add(s.names.audit(ev.Agent), ev) // the inbox's agent
	}
	driver.Notify(s.opts.Observer, s.opts.Now, ev)
}

// observed reports whether events go anywhere (the Observer or the audit
// log): the paths every message takes build their events only then.
func (s *Store) observed() bool { return s.opts.Observer != nil || s.audit != nil }
