package natsstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// handled is a message of a task that its recipient acknowledged.
type handled struct {
	seq              uint64
	id, from, thread string
}

// taskIndex is what SweepTask knows of one agent's handled task messages:
// those its inboxes acknowledged in this store, and, from its first sweep
// on, those the history stream holds from before.
type taskIndex struct {
	sweep sync.Mutex // serialises the sweeps of the agent

	mu     sync.Mutex // guards the fields below
	seeded bool
	byTask map[string]map[uint64]handled // handled and not swept yet
}

// add records h as a message of task. The caller holds x.mu.
func (x *taskIndex) add(task string, h handled) {
	if x.byTask[task] == nil {
		x.byTask[task] = map[uint64]handled{}
	}
	x.byTask[task][h.seq] = h
}

// sweepIndexes are the task indexes of a store, by agent.
type sweepIndexes struct {
	mu sync.Mutex
	by map[string]*taskIndex
}

func (si *sweepIndexes) get(agent string) *taskIndex {
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.by == nil {
		si.by = map[string]*taskIndex{}
	}
	x := si.by[agent]
	if x == nil {
		x = &taskIndex{byTask: map[string]map[uint64]handled{}}
		si.by[agent] = x
	}
	return x
}

// noteAcked records that agent acknowledged msg, at seq in the stream.
func (si *sweepIndexes) noteAcked(agent string, seq uint64, msg *envelope.Message) {
	task := msg.TaskOf()
	if task == "" {
		return
	}
	x := si.get(agent)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.add(task, handled{seq: seq, id: msg.ID, from: msg.From, thread: msg.ThreadID})
}

// SweepTask implements driver.TaskSweeper: the handled messages of task
// taskID (those this agent acknowledged; pending and claimed ones stay as
// they are) are marked swept by one marker on <prefix>.<agent>.swept of
// the history stream, {"task": taskID, "seqs": [their sequences]}, so
// Browse shows them as BoxArchive; each is reported as EventSwept.
// Sweeping a task again marks only what was handled since.
//
// Its first sweep reads what the history stream holds for this agent, to
// find the messages handled before the inbox opened (a consumer named
// sweep-<agent> on <prefix>.<agent>.>). When it may not (per-agent
// permissions without that grant), a warning says so and it sweeps the
// messages acknowledged through this store only. Without the history
// (Options.NoHistory) it fails with ErrNoHistory.
func (in *Inbox) SweepTask(ctx context.Context, taskID string) (int, error) {
	if taskID == "" {
		return 0, errors.New("sweep task: empty task id")
	}
	if err := in.s.needHistory("sweep task " + taskID); err != nil {
		return 0, err
	}
	in.mu.Lock()
	closed := in.closed
	in.mu.Unlock()
	if closed {
		return 0, driver.ErrClosed
	}
	x := in.s.sweeps.get(in.agent)
	x.sweep.Lock()
	defer x.sweep.Unlock()
	x.mu.Lock()
	seeded := x.seeded
	x.mu.Unlock()
	if !seeded {
		in.seedSweeps(ctx, x)
	}
	x.mu.Lock()
	var list []handled
	for _, h := range x.byTask[taskID] {
		list = append(list, h)
	}
	x.mu.Unlock()
	if len(list) == 0 {
		return 0, nil
	}
	slices.SortFunc(list, func(a, b handled) int { return cmp.Compare(a.seq, b.seq) })
	mk := sweptMarker{Task: taskID}
	for _, h := range list {
		mk.Seqs = append(mk.Seqs, h.seq)
	}
	if err := in.s.publishMarker(ctx, in.agent, mk); err != nil {
		return 0, fmt.Errorf("sweep task %s: %w", taskID, err)
	}
	x.mu.Lock()
	for _, h := range list {
		delete(x.byTask[taskID], h.seq)
	}
	if len(x.byTask[taskID]) == 0 {
		delete(x.byTask, taskID)
	}
	x.mu.Unlock()
	for _, h := range list {
		in.s.emit(driver.Event{Kind: driver.EventSwept, Agent: in.agent, MessageID: h.id, From: h.from,
			Ref: ref(h.seq), ThreadID: h.thread, TaskID: taskID})
	}
	return len(list), nil
}

// publishMarker stores mk on agent's swept subject, waiting for the
// history stream to confirm it.
func (s *Store) publishMarker(ctx context.Context, agent string, mk sweptMarker) error {
	data, err := json.Marshal(mk)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	if _, err := s.js.Publish(ctx, s.names.swept(agent), data); err != nil {
		return fmt.Errorf("publish to %s: %w", s.names.swept(agent), err)
	}
	return nil
}

// seedSweeps adds to x the task messages of the agent the history stream
// holds that its consumers settled (at or below their acknowledgement
// floor), and the swept markers the agent wrote. A failure is logged: x
// then knows what this store acknowledged only. A read that was cut short
// (the caller's context ended, the server did not answer in time) is
// tried again by the next sweep; a refusal is not.
func (in *Inbox) seedSweeps(ctx context.Context, x *taskIndex) {
	found, swept, err := in.s.readOwnTasks(ctx, in.agent)
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.seeded = !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
			!errors.Is(err, nats.ErrTimeout)
		in.s.opts.Logger.Warn("cannot read this agent's history; sweeping only the messages handled since its inbox opened",
			"agent", in.agent, "err", err)
		return
	}
	x.seeded = true
	for task, hs := range found {
		for _, h := range hs {
			if !swept[h.seq] {
				x.add(task, h)
			}
		}
	}
}

// readOwnTasks reads agent's part of the history stream: the task
// messages its consumers settled, by task, and the sequences it swept.
func (s *Store) readOwnTasks(ctx context.Context, agent string) (map[string][]handled, map[uint64]bool, error) {
	floors, err := s.ackFloors(ctx, agent)
	if err != nil {
		return nil, nil, err
	}
	found, swept := map[string][]handled{}, map[uint64]bool{}
	err = s.readOwnHistory(ctx, agent, func(m jetstream.Msg) bool {
		if who, ok := s.sweptMarkerAgent(m); ok {
			if who == agent {
				for _, seq := range decodeMarker(m).Seqs {
					swept[seq] = true
				}
			}
			return true
		}
		c, ok := s.decodeCopy(m)
		if !ok || c.agent != agent || c.msg.TaskOf() == "" {
			return true
		}
		for filter, floor := range floors {
			if subjectWithin(c.subject, filter) && c.seq <= floor {
				task := c.msg.TaskOf()
				found[task] = append(found[task], handled{seq: c.seq, id: c.msg.ID, from: c.msg.From, thread: c.msg.ThreadID})
				break
			}
		}
		return true
	})
	return found, swept, err
}

// ackFloors returns the acknowledgement floor of each filter of agent's
// consumers: every message on it up to the floor is settled.
func (s *Store) ackFloors(ctx context.Context, agent string) (map[string]uint64, error) {
	floors := map[string]uint64{}
	for _, name := range []string{consumerName(agent), priorityConsumerName(agent)} {
		cons, err := s.js.Consumer(ctx, s.opts.Stream, name)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("consumer %s: %w", name, err)
		}
		ci := cons.CachedInfo()
		for _, f := range append(slices.Clone(ci.Config.FilterSubjects), ci.Config.FilterSubject) {
			if f != "" {
				floors[f] = ci.AckFloor.Stream
			}
		}
	}
	return floors, nil
}

// readOwnHistory calls fn with each entry of agent's part of the history
// stream, oldest first, through a consumer named sweep-<agent> (a name
// per-agent permissions can grant).
func (s *Store) readOwnHistory(ctx context.Context, agent string, fn func(jetstream.Msg) bool) error {
	cfg := jetstream.ConsumerConfig{
		Name: "sweep-" + token(agent), Description: "switchboard: tasks handled by " + agent,
		FilterSubject: s.names.ownHistory(agent), AckPolicy: jetstream.AckNonePolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy, MemoryStorage: true, Replicas: 1,
		InactiveThreshold: time.Minute,
	}
	hist := s.opts.HistoryStream
	cons, err := s.js.CreateOrUpdateConsumer(ctx, hist, cfg)
	if err == nil && cons.CachedInfo().Delivered.Stream > 0 { // left by a read that did not finish
		s.dropConsumer(ctx, cfg.Name)
		cons, err = s.js.CreateConsumer(ctx, hist, cfg)
	}
	if err != nil {
		return fmt.Errorf("read %s of the history stream %s: %w", cfg.FilterSubject, hist, err)
	}
	defer s.dropConsumer(ctx, cfg.Name)
	if err := drain(ctx, cons, fn, nil); err != nil {
		return fmt.Errorf("read %s of the history stream %s: %w", cfg.FilterSubject, hist, err)
	}
	return nil
}
