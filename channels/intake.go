package channels

import (
	"context"
	"errors"
	"fmt"
)

// ReceiveStopper is implemented by channels that can stop taking in new
// messages while they keep sending. A host calls StopReceiving first on
// shutdown, lets its agent loop answer what was already received, and only
// then calls Stop. What arrives after StopReceiving must stay where its
// sender can find it again (a mailbox message stays in the inbox, a
// webhook call is refused), never be taken and dropped. StopReceiving
// returns once no more messages will be published, within ctx's deadline.
type ReceiveStopper interface {
	StopReceiving(ctx context.Context) error
}

// StopReceiving asks every running channel that is a ReceiveStopper to stop
// taking in messages, in the order they were added, and returns their
// errors joined. Channels that are not ReceiveStoppers go on receiving
// until Stop; their inbound messages then meet a closed bus (see
// bus.Bus.CloseInbound) and are refused. Sends go on as before.
func (m *Manager) StopReceiving(ctx context.Context) error {
	m.mu.Lock()
	if !m.started {
		m.mu.Unlock()
		return nil
	}
	var stoppers []ReceiveStopper
	var names []string
	for _, name := range m.order {
		if rs, ok := m.channels[name].ch.(ReceiveStopper); ok {
			stoppers, names = append(stoppers, rs), append(names, name)
		}
	}
	m.mu.Unlock()
	var errs []error
	for i, rs := range stoppers {
		if err := rs.StopReceiving(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop receiving on channel %q: %w", names[i], err))
		}
	}
	return errors.Join(errs...)
}

// Drain waits until every outbound message on the bus has been sent, or
// reported as not delivered. Call it after closing the bus (no more
// outbound messages can come), before Stop, which would cancel the sends
// still queued: the dispatcher ends once it has taken everything from the
// closed bus, and Drain then waits for the channels to send what it handed
// them. It returns ctx's error if that does not happen in time, and nil at
// once on a manager that is not started.
func (m *Manager) Drain(ctx context.Context) error {
	m.mu.Lock()
	started, dispatched := m.started, m.dispatched
	m.mu.Unlock()
	if !started {
		return nil
	}
	select {
	case <-dispatched:
	case <-ctx.Done():
		return fmt.Errorf("drain outbound messages: the bus was not closed and emptied in time: %w", ctx.Err())
	}
	sent := make(chan struct{})
	go func() { m.outstanding.Wait(); close(sent) }() // ends at the latest when Stop reports the rest
	select {
	case <-sent:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("drain outbound messages: sends still in progress: %w", ctx.Err())
	}
}
