package natsstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The history stream holds, under the subject prefix:
//
//	<to>.history.<from>  a copy of each message the main stream stored,
//	                     republished by the server (headers Nats-Stream,
//	                     Nats-Sequence: its sequence there, Nats-Subject)
//	<agent>.audit        the audit log: batches of driver.Event, one JSON
//	                     line each, written by the agent that acted (see
//	                     auditLog); the copies are its "sent" entries
//	<agent>.swept        the markers of SweepTask: {"task", "seqs"}
//
// These never overlap the main stream's subjects (<to>.inbox.<from>,
// <to>.priority.<from>, <agent>.dead): the token after the agent differs.
const (
	historyToken = "history"
	auditToken   = "audit"
	sweptToken   = "swept"
)

// refusedWait bounds a request the server's permissions may refuse: a
// refused request gets no answer, only a timeout.
const refusedWait = 5 * time.Second

// historyFilter matches every copy in the history stream.
func (n names) historyFilter() string { return n.prefix + ".*." + historyToken + ".*" }

// auditFilter matches every audit entry; sweptFilter every swept marker.
func (n names) auditFilter() string { return n.prefix + ".*." + auditToken }
func (n names) sweptFilter() string { return n.prefix + ".*." + sweptToken }

// audit is the subject of the audit entries agent writes; swept that of
// its swept markers.
func (n names) audit(agent string) string { return n.prefix + "." + token(agent) + "." + auditToken }
func (n names) swept(agent string) string { return n.prefix + "." + token(agent) + "." + sweptToken }

// ownHistory matches what the history stream holds of agent: copies of
// the messages sent to it, its audit entries and its swept markers.
func (n names) ownHistory(agent string) string { return n.prefix + "." + token(agent) + ".>" }

// historySubjects are the subjects of the history stream.
func (n names) historySubjects() []string {
	return []string{n.historyFilter(), n.auditFilter(), n.sweptFilter()}
}

// republish is the main stream's RePublish: every message stored on a
// subject of four tokens (<prefix>.<to>.<kind>.<from>: inbox and priority
// alike; dead letters have three) is copied to <prefix>.<to>.history.<from>.
func (n names) republish() *jetstream.RePublish {
	return &jetstream.RePublish{
		Source:      n.prefix + ".*.*.*",
		Destination: n.prefix + ".{{wildcard(1)}}." + historyToken + ".{{wildcard(3)}}",
	}
}

// split returns the tokens of subject after the prefix, or nil if it does
// not start with the prefix.
func (n names) split(subject string) []string {
	rest, ok := strings.CutPrefix(subject, n.prefix+".")
	if !ok {
		return nil
	}
	return strings.Split(rest, ".")
}

// untoken is the inverse of token.
func untoken(tok string) (string, error) {
	enc, ok := strings.CutPrefix(tok, "=")
	if !ok {
		return tok, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("subject token %q: %w", tok, err)
	}
	return string(b), nil
}

// historyConfig is the configuration of a new history stream.
func (s *Store) historyConfig() jetstream.StreamConfig {
	o := s.opts
	cfg := jetstream.StreamConfig{
		Name: o.HistoryStream, Subjects: s.names.historySubjects(),
		Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardOld, Storage: jetstream.FileStorage,
		Replicas: o.Replicas, MaxAge: max(o.HistoryMaxAge, 0), MaxBytes: max(o.HistoryMaxBytes, -1),
		Duplicates:  o.DuplicateWindow,
		Description: "switchboard mailbox history: copies of the messages, the audit log, swept markers",
	}
	if cfg.MaxAge > 0 && cfg.Duplicates > cfg.MaxAge {
		cfg.Duplicates = cfg.MaxAge
	}
	return cfg
}

// setUpHistory finds or creates the history stream. The history is a view
// and never needed to deliver a message: when it cannot be found or made
// (no permission, no room), a warning says so and the store goes on.
func (s *Store) setUpHistory(parent context.Context) {
	o := s.opts
	ctx, cancel := context.WithTimeout(parent, refusedWait)
	defer cancel()
	stream, err := s.js.Stream(ctx, o.HistoryStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) && o.NoCreate {
		return // a reader: reading the history says it is missing, if it is
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		err = s.createHistory(parent)
	} else if err == nil && !o.NoCreate {
		err = s.addHistorySubjects(ctx, stream)
	}
	switch {
	case err == nil:
	case unanswered(err, s.nc.LastError()):
		// A thousand agents that start at once can keep a server busier
		// than this wait: the stream the first of them made is there.
		o.Logger.Info("history stream not checked: the server did not answer in time (busy); the history is read back as long as the stream exists",
			"stream", o.HistoryStream, "wait", refusedWait)
	default:
		o.Logger.Warn("history stream unavailable: threads, replies owed and the audit log cannot be read back",
			"stream", o.HistoryStream, "err", err)
	}
}

// createHistory creates the history stream, each try bounded by
// refusedWait. A server without room for historyMaxBytes (file storage
// below it, or an account limit) refuses a stream that would reserve it:
// the bound is then halved until the server takes it or it falls below
// minHistoryBytes, and a warning names the bound refused and the one
// made. The history is a view: a smaller one beats none.
func (s *Store) createHistory(parent context.Context) error {
	cfg := s.historyConfig()
	for {
		ctx, cancel := context.WithTimeout(parent, refusedWait)
		_, err := s.js.CreateStream(ctx, cfg)
		cancel()
		switch {
		case errors.Is(err, jetstream.ErrStreamNameAlreadyInUse): // created meanwhile
			return nil
		case err != nil && noRoom(err) && cfg.MaxBytes/2 >= minHistoryBytes:
			cfg.MaxBytes /= 2
			continue
		case err == nil && cfg.MaxBytes != s.historyConfig().MaxBytes:
			s.opts.Logger.Warn("history stream made smaller than historyMaxBytes: the server had no room for twice its size "+
				"(its JetStream file storage, the account's limits, or in a cluster every server's); the oldest history goes first",
				"stream", cfg.Name, "historyMaxBytes", s.opts.HistoryMaxBytes, "refused", cfg.MaxBytes*2, "made", cfg.MaxBytes)
		}
		return err
	}
}

// The JetStream API's errors for a stream whose storage the server, the
// account or, in a cluster, every server able to hold it has no room for.
const (
	errCodeClusterNoPeers           jetstream.ErrorCode = 10005
	errCodeInsufficientResources    jetstream.ErrorCode = 10023
	errCodeStorageResourcesExceeded jetstream.ErrorCode = 10047
	errCodeStreamMaxBytesExceeded   jetstream.ErrorCode = 10122 // the account's max bytes of one stream
)

// noRoom reports that err is the server's refusal of a stream for lack
// of storage.
func noRoom(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.ErrorCode {
	case errCodeInsufficientResources, errCodeStorageResourcesExceeded, errCodeStreamMaxBytesExceeded:
		return true
	case errCodeClusterNoPeers: // "no suitable peers for placement, insufficient storage"
		return strings.Contains(apiErr.Description, "insufficient storage")
	}
	return false
}

// unanswered reports that a request to the JetStream API timed out (err)
// without the server refusing it (lastErr, the connection's last error,
// is no permissions violation on the API's stream requests): the server
// is busy, not in the way.
func unanswered(err, lastErr error) bool {
	return errors.Is(err, context.DeadlineExceeded) &&
		!(errors.Is(lastErr, nats.ErrPermissionViolation) && strings.Contains(lastErr.Error(), `"$JS.API.STREAM.`))
}

// addHistorySubjects adds this store's subjects to a history stream that
// lacks them (one shared with stores of another subject prefix).
func (s *Store) addHistorySubjects(ctx context.Context, stream jetstream.Stream) error {
	cfg := stream.CachedInfo().Config
	var missing []string
	for _, want := range s.names.historySubjects() {
		if !slices.ContainsFunc(cfg.Subjects, func(have string) bool { return subjectWithin(want, have) }) {
			missing = append(missing, want)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	cfg.Subjects = append(cfg.Subjects, missing...)
	if _, err := s.js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("it lacks the subjects %s and adding them failed: %w", strings.Join(missing, ", "), err)
	}
	return nil
}

// addRePublish makes a main stream created by an older version copy its
// messages to the history stream. When the server refuses (the user may
// not change the stream), a warning says how to do it and the store goes
// on: the history then lacks the messages stored from now on.
func (s *Store) addRePublish(ctx context.Context) {
	cfg := s.stream.CachedInfo().Config
	want := s.names.republish()
	switch {
	case cfg.RePublish != nil && *cfg.RePublish == *want:
		return
	case cfg.RePublish != nil:
		s.opts.Logger.Warn("stream republishes its messages elsewhere; the history stream gets no copies",
			"stream", cfg.Name, "source", cfg.RePublish.Source, "destination", cfg.RePublish.Destination)
		return
	}
	cfg.RePublish = want
	ctx, cancel := context.WithTimeout(ctx, refusedWait)
	defer cancel()
	stream, err := s.js.UpdateStream(ctx, cfg)
	if err != nil {
		s.opts.Logger.Warn("stream does not copy its messages to the history stream and could not be changed; "+
			"an administrator can add the republish (nats stream edit)",
			"stream", cfg.Name, "source", want.Source, "destination", want.Destination, "err", err)
		return
	}
	s.stream = stream
}

// catchUpWait bounds how long a reader waits for copies the server is
// still republishing (see drain).
const catchUpWait = 3 * time.Second

// stallWait bounds how long a reader waits for the next entry it counted
// on: one that expired meanwhile never comes.
const stallWait = requestTimeout

// drain calls fn with the messages cons delivers, oldest first, until fn
// returns false or ctx ends, and otherwise until the messages there when
// cons was made are read and caughtUp (nil: always true) reports true.
// What caughtUp waits for and has not come within catchUpWait is left:
// a copy the server could not store never comes. cons must be a fresh
// consumer without acknowledgements.
func drain(ctx context.Context, cons jetstream.Consumer, fn func(jetstream.Msg) bool, caughtUp func() bool) error {
	left := cons.CachedInfo().NumPending
	done := func() bool { return left == 0 && (caughtUp == nil || caughtUp()) }
	if done() {
		return nil
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		return err
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	var giveUp *time.Timer // runs while waiting for caughtUp
	defer func() {
		if giveUp != nil {
			giveUp.Stop()
		}
	}()
	// Entries counted at the start may expire before they are read; a
	// read that gets nothing for stallWait ends with what it has.
	var stalled atomic.Bool
	idle := time.AfterFunc(stallWait, func() { stalled.Store(true); it.Stop() })
	defer idle.Stop()
	for !done() {
		if left == 0 && giveUp == nil {
			giveUp = time.AfterFunc(catchUpWait, it.Stop)
		}
		m, err := it.Next()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case (giveUp != nil || stalled.Load()) && errors.Is(err, jetstream.ErrMsgIteratorClosed):
			return nil
		case err != nil:
			return err
		}
		idle.Reset(stallWait)
		md, err := m.Metadata()
		if err != nil {
			continue
		}
		if left = max(left, 1) - 1; md.NumPending == 0 {
			left = 0
		}
		if !fn(m) {
			return nil
		}
	}
	return nil
}

// readHistory calls fn with each entry of the history stream on filters,
// oldest first, through an ordered consumer of its own (see drain for
// caughtUp).
func (s *Store) readHistory(ctx context.Context, filters []string, fn func(jetstream.Msg) bool, caughtUp func() bool) error {
	cons, err := s.js.OrderedConsumer(ctx, s.opts.HistoryStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: filters, InactiveThreshold: time.Minute,
		MaxResetAttempts: 3, // a read that loses the server fails rather than waits for it
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("read the history: stream %s does not exist; the first agent to open the mailbox makes it, "+
			"and warns in its log when it cannot: %w", s.opts.HistoryStream, err)
	}
	if err != nil {
		return fmt.Errorf("read the history stream %s: %w", s.opts.HistoryStream, err)
	}
	defer func() { // the consumer in use at the end: a reset replaces it
		if ci := cons.CachedInfo(); ci != nil {
			s.dropConsumer(ctx, ci.Name)
		}
	}()
	if err := drain(ctx, cons, fn, caughtUp); err != nil {
		return fmt.Errorf("read the history stream %s: %w", s.opts.HistoryStream, err)
	}
	return nil
}

// dropConsumer deletes a consumer of the history stream made for one
// read; the server would drop it after a minute unused anyway.
func (s *Store) dropConsumer(ctx context.Context, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refusedWait)
	defer cancel()
	if err := s.js.DeleteConsumer(ctx, s.opts.HistoryStream, name); err != nil &&
		!errors.Is(err, jetstream.ErrConsumerNotFound) {
		s.opts.Logger.Debug("consumer of the history stream left to expire", "name", name, "err", err)
	}
}

// ErrNoHistory is the error of Browse, ReadAudit and SweepTask in a store
// opened without the history (Options.NoHistory, config history: false).
// It wraps driver.ErrTurnedOff.
var ErrNoHistory = fmt.Errorf("no history: %s.history is false "+
	"(threads, replies owed, task archives and the audit log need it): %w", ConfigPath, driver.ErrTurnedOff)

// needHistory returns ErrNoHistory, saying what needed it, when the
// history is off.
func (s *Store) needHistory(what string) error {
	if s.opts.NoHistory {
		return fmt.Errorf("%s: %w", what, ErrNoHistory)
	}
	return nil
}
