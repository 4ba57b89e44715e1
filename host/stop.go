package host

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// defaultStopTimeout bounds each step of Stop unless Options say otherwise.
const defaultStopTimeout = 10 * time.Second

// Run starts the host and runs it until ctx ends, then stops it (see
// Stop). It returns early, with an error, when the agent loop ends on its
// own. A ctx that ends before the host is running (a SIGTERM while it
// starts) is a stop asked for, not a failure: what started is stopped and
// Run returns nil.
func (h *Host) Run(ctx context.Context) error {
	if ctx.Err() != nil {
		_ = h.Stop()
		h.log.Info("host stopped before it started: asked to stop")
		return nil
	}
	if err := h.Start(ctx); err != nil {
		stopErr := h.Stop()
		if ctx.Err() != nil {
			h.log.Info("host stopped while it started: asked to stop", "start", err)
			if stopErr != nil {
				return fmt.Errorf("stop: %w", stopErr)
			}
			return nil
		}
		return err
	}
	h.log.Info("host running", h.Describe()...)
	var early error
	select {
	case <-ctx.Done():
	case <-h.Done():
		early = errors.New("the agent loop ended unexpectedly")
	}
	err := h.Stop()
	h.log.Info("host stopped")
	if early != nil {
		return errors.Join(early, err)
	}
	if err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// Stop shuts the host down without losing what it received:
//
//  1. the channels stop taking in messages (the mailbox leaves new mail in
//     the inbox), and the bus refuses inbound messages from then on (the
//     Feishu stub answers its webhook 503);
//  2. the loop answers everything already received and ends, and the
//     answers are sent — both within the stop timeout; past it, the turns still
//     in progress are abandoned: their messages were never acknowledged, so
//     they come back on the next start, and Stop's error (ErrUnfinished)
//     says how many;
//  3. the MCP servers of tools.mcpServers stop, then the channels stop
//     (the mailbox marks the agent offline), each within another stop
//     timeout, and the bus is closed.
//
// Calls after the first do nothing.
func (h *Host) Stop() error {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return nil
	}
	h.stopped = true
	cancel, done := h.cancel, h.loopDone
	h.mu.Unlock()
	defer h.bus.Close()
	if cancel == nil {
		return nil // never started
	}
	finishErr := h.finish(cancel, done)
	h.mu.Lock()
	loopErr := h.loopErr
	h.mu.Unlock()
	if errors.Is(loopErr, context.Canceled) {
		loopErr = nil
	} else if loopErr != nil {
		loopErr = fmt.Errorf("agent loop: %w", loopErr)
	}
	mcpErr := h.stopMCP() // no turn calls a tool now
	ctx, cancelStop := context.WithTimeout(context.Background(), h.stopTimeout)
	defer cancelStop()
	err := h.manager.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("channels did not stop within %s: %w", h.stopTimeout, err)
	}
	return errors.Join(loopErr, finishErr, mcpErr, err)
}

// finish is steps 1 and 2 of stop: it ends the intake, lets the loop
// answer what was received, ends it (cancelling it past the deadline) and
// waits for the answers to be sent. Only a failure of the intake's stop is
// returned; running late is logged, since what is abandoned then is
// reported (or comes back) elsewhere.
func (h *Host) finish(cancelLoop context.CancelFunc, loopDone <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), h.stopTimeout)
	defer cancel()
	h.log.Info("host stopping: no longer receiving; answering what was received")
	intakeErr := h.manager.StopReceiving(ctx)
	_ = h.bus.CloseInbound()
	select {
	case <-loopDone:
	case <-ctx.Done():
		h.log.Warn("the agent loop did not finish in time; abandoning the turns in progress",
			"limit", h.stopTimeout, "queued", h.bus.InboundDepth())
	}
	cancelLoop()
	<-loopDone
	unfinished := h.loop.Unfinished() + h.bus.InboundDepth()
	_ = h.bus.Close() // nothing publishes answers now: the dispatcher ends once it has taken them all
	if err := h.manager.Drain(ctx); err != nil {
		h.log.Warn("answers not sent before the stop; the channels report them", "err", err)
	}
	if unfinished > 0 {
		return errors.Join(intakeErr, fmt.Errorf("%w: %d message(s) not answered within %s; they stay with their channels (claimed in the mailbox) and are handled on the next start",
			ErrUnfinished, unfinished, h.stopTimeout))
	}
	return intakeErr
}

// ErrUnfinished is wrapped by the error of a Stop that could not finish
// every message it had taken in before its deadline. Nothing is lost:
// those messages were never acknowledged.
var ErrUnfinished = errors.New("stopped with work unfinished")
