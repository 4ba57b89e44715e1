package agentloop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

// ErrRunning is returned by Run while another Run of the same Loop is active.
var ErrRunning = errors.New("agent loop already running")

// Loop is the agent loop. Create it with New and start it with Run.
type Loop struct {
	cfg     Config
	log     *slog.Logger
	history *histories
	gate    *gate // nil when nothing needs approval
	notices *notices
	running atomic.Bool
	// taken and finished count the messages taken off the bus and those
	// whose turn ran to its end (see Unfinished).
	taken, finished atomic.Int64
}

// New checks cfg (see Config) and returns a Loop. The workspace is created
// when the first history is written.
func New(cfg Config) (*Loop, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ws, err := config.ExpandHome(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("agent loop: workspace: %w", err)
	}
	cfg.Workspace = ws
	if err := loadPromptFile(&cfg); err != nil {
		return nil, err
	}
	cfg.Capabilities, cfg.Roles = slices.Clone(cfg.Capabilities), slices.Clone(cfg.Roles)
	cfg.Notices.Templates = maps.Clone(cfg.Notices.Templates)
	notices, err := newNotices(cfg.Notices)
	if err != nil {
		return nil, err
	}
	l := &Loop{
		notices: notices,
		cfg:     cfg,
		log:     cfg.Logger,
		history: newHistories(filepath.Join(ws, "sessions"), cfg.HistoryWindow, cfg.Now, cfg.Logger),
	}
	if cfg.Approval.needed() {
		l.gate = newGate(cfg.Approval, cfg.AgentID, cfg.Bus, cfg.Logger)
	}
	return l, nil
}

// Workspace returns the workspace folder, with "~/" expanded.
func (l *Loop) Workspace() string { return l.cfg.Workspace }

// Run consumes inbound messages and answers them until ctx ends (it then
// returns ctx.Err()) or the bus is closed (it then finishes the messages
// already taken and returns nil). It waits for the turns in progress
// before returning.
func (l *Loop) Run(ctx context.Context) error {
	if !l.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer l.running.Store(false)
	s := newScheduler(l.cfg.MaxConcurrentSessions, l.cfg.QueueSize, func(ctx context.Context, in bus.InboundMessage) {
		l.handle(ctx, in)
		if ctx.Err() == nil {
			l.finished.Add(1)
		}
	})
	defer s.wait()
	for {
		in, err := l.cfg.Bus.ConsumeInbound(ctx)
		if errors.Is(err, bus.ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		l.taken.Add(1)
		if l.gate != nil && l.gate.take(ctx, in) {
			// The answer to an approval its chat's turn waits for: that
			// turn is busy, so it must not queue behind it.
			l.finished.Add(1)
			continue
		}
		if l.answered(ctx, in) {
			l.finished.Add(1) // an answer to a channel's question (AnswerChannel)
			continue
		}
		if err := s.dispatch(ctx, in); err != nil {
			return err
		}
	}
}

// answered reports whether one of Config.Answers took in.
func (l *Loop) answered(ctx context.Context, in bus.InboundMessage) bool {
	for _, take := range l.cfg.Answers {
		if take(ctx, in) {
			return true
		}
	}
	return false
}

// Unfinished returns how many messages the loop took off the bus and did
// not run to the end of their turn: turns cut short when Run's context
// ended, and messages still queued then. Their channels keep them (they
// were never finished, see bus.InboundMessage.Done) and hand them over
// again on the next start.
func (l *Loop) Unfinished() int { return int(l.taken.Load() - l.finished.Load()) }
