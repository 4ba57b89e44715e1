package channels

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/tracing"
)

// managed is one channel with its outbound queue and running flag.
type managed struct {
	ch      Channel
	queue   chan bus.OutboundMessage
	running atomic.Bool
}

func (mc *managed) setRunning(v bool) { mc.running.Store(v) }

// dispatch moves outbound messages from the bus to the channels' queues
// until ctx ends or the bus closes. A full channel queue holds the
// dispatcher back (back-pressure) rather than growing.
func (m *Manager) dispatch(ctx context.Context) {
	for {
		msg, err := m.bus.ConsumeOutbound(ctx)
		if err != nil {
			return
		}
		m.mu.Lock()
		mc, ok := m.channels[msg.Channel]
		m.mu.Unlock()
		if !ok {
			m.report(msg, 0, fmt.Errorf("%w %q (known: %v)", ErrUnknownChannel, msg.Channel, m.Names()))
			continue
		}
		m.outstanding.Add(1)
		select {
		case mc.queue <- msg:
		case <-ctx.Done():
			m.report(msg, 0, fmt.Errorf("manager stopping: %w", ctx.Err()))
			m.outstanding.Done()
			return
		}
	}
}

// work sends one channel's queued messages in order.
func (m *Manager) work(ctx context.Context, mc *managed) {
	for {
		select {
		case msg := <-mc.queue:
			attempts, err := m.send(ctx, mc, msg)
			if err != nil {
				m.report(msg, attempts, err)
			} else {
				msg.Settle(nil)
			}
			m.outstanding.Done()
		case <-ctx.Done():
			return
		}
	}
}

// Send delivers one outbound message to the channel it names, retrying
// temporary errors with exponential backoff and jitter. It is what the dispatcher uses,
// exported for callers that need the result of one send.
func (m *Manager) Send(ctx context.Context, msg bus.OutboundMessage) error {
	m.mu.Lock()
	mc, ok := m.channels[msg.Channel]
	m.mu.Unlock()
	if !ok {
		de := &DispatchError{Channel: msg.Channel, ChatID: msg.ChatID,
			Err: fmt.Errorf("%w %q", ErrUnknownChannel, msg.Channel)}
		msg.Settle(de)
		return de
	}
	attempts, err := m.send(ctx, mc, msg)
	if err != nil {
		de := &DispatchError{Channel: msg.Channel, ChatID: msg.ChatID, Attempts: attempts, Err: err}
		msg.Settle(de)
		return de
	}
	msg.Settle(nil)
	return nil
}

// send sends msg with retries (see Retry), in a span "send <chat>" that
// joins the trace of msg.TraceContext.
func (m *Manager) send(ctx context.Context, mc *managed, msg bus.OutboundMessage) (attempts int, err error) {
	ctx, span := tracing.StartSend(tracing.Extract(ctx, msg.TraceContext),
		tracing.Message{System: msg.Channel, Destination: msg.ChatID, Clock: m.cfg.Clock})
	defer func() { tracing.EndAt(span, err, m.cfg.Clock) }()
	notRunning := false
	attempts, err = m.cfg.retry().Do(ctx, func(ctx context.Context) error {
		if !mc.running.Load() {
			notRunning = true
			return fmt.Errorf("channel %q: %w", msg.Channel, ErrNotRunning)
		}
		return mc.ch.Send(ctx, msg)
	}, func(attempt int, wait time.Duration, err error) {
		m.cfg.Logger.Warn("send failed, retrying", append(tracing.LogAttrs("", msg.Thread, msg.TraceContext), "channel", msg.Channel,
			"attempt", attempt, "backoff", wait, "err", err)...)
	})
	if notRunning {
		attempts-- // the channel was not asked
	}
	return attempts, err
}

// report logs a message that was not delivered, tells OnDispatchError and
// settles the message with the error.
func (m *Manager) report(msg bus.OutboundMessage, attempts int, err error) {
	de := &DispatchError{Channel: msg.Channel, ChatID: msg.ChatID, Attempts: attempts, Err: err}
	defer msg.Settle(de)
	m.cfg.Logger.Error("outbound message not delivered", append(tracing.LogAttrs("", msg.Thread, msg.TraceContext), "channel", msg.Channel,
		"chat_id", msg.ChatID, "attempts", attempts, "err", err)...)
	if m.cfg.OnDispatchError != nil {
		m.cfg.OnDispatchError(de)
	}
}

// Stop ends dispatching and stops every channel, in parallel, within ctx's
// deadline (StopTimeout when ctx has none). Sends in progress are cancelled,
// and messages still queued for a channel are reported as not delivered.
// Stop returns by the deadline even if a send or a channel's Stop ignores
// its context; what did not finish in time is part of the error. It returns
// the channels' stop errors joined. Stop on a manager that was never
// started, or is already stopped, returns nil.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	if !m.started {
		m.mu.Unlock()
		return nil
	}
	m.started = false
	cancel := m.cancel
	chans := make([]*managed, 0, len(m.order))
	for _, name := range m.order {
		chans = append(chans, m.channels[name])
	}
	m.mu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, m.cfg.StopTimeout)
		defer c()
	}
	for _, mc := range chans {
		mc.setRunning(false) // no send starts from now on
	}
	cancel()
	var errs []error
	waited := make(chan struct{})
	go func() { m.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		// A send ignores its context. Stop the channels all the same:
		// nothing else would.
		errs = append(errs, fmt.Errorf("stop channels: dispatcher did not finish: %w", ctx.Err()))
	}

	type stopped struct {
		name string
		err  error
	}
	results := make(chan stopped, len(chans))
	pending := make(map[string]bool, len(chans))
	for _, mc := range chans {
		m.drainUndelivered(mc)
		name := mc.ch.Name()
		pending[name] = true
		go func() { results <- stopped{name, mc.ch.Stop(ctx)} }()
	}
	for len(pending) > 0 {
		var r stopped
		select {
		case r = <-results:
		case <-ctx.Done():
			select {
			case r = <-results: // a result that is already there still counts
			default:
				for _, mc := range chans {
					if name := mc.ch.Name(); pending[name] {
						errs = append(errs, fmt.Errorf("stop channel %q: did not stop in time: %w", name, ctx.Err()))
					}
				}
				return errors.Join(errs...)
			}
		}
		delete(pending, r.name)
		if r.err != nil {
			errs = append(errs, fmt.Errorf("stop channel %q: %w", r.name, r.err))
		}
	}
	return errors.Join(errs...)
}

func (m *Manager) drainUndelivered(mc *managed) {
	for {
		select {
		case msg := <-mc.queue:
			m.report(msg, 0, fmt.Errorf("channel %q: %w (manager stopped)", msg.Channel, ErrNotRunning))
			m.outstanding.Done()
		default:
			return
		}
	}
}
