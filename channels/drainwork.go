package channels

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// WorkDrainer is implemented by channels that hand the agent work it must
// finish (the mailbox: tasks from other agents) and can be drained of it:
// DrainWork makes the channel take no new work (it refuses it, saying
// why, so that senders go elsewhere), let the work in hand run to its end,
// and then close WorkDrained. A drain may also begin from outside the
// process (the mailbox: `switchboard drain`); WorkDrained is closed then
// too. A host stops once a channel is drained (see host.Host.Run).
type WorkDrainer interface {
	// DrainWork begins the drain; a second call does nothing.
	DrainWork(ctx context.Context) error
	// WorkDrained is closed when the channel drained and has no work left.
	WorkDrained() <-chan struct{}
}

// DrainWork asks every running channel that is a WorkDrainer to drain its
// work (see WorkDrainer) and returns their errors joined. It reports
// false when no channel can drain.
func (m *Manager) DrainWork(ctx context.Context) (bool, error) {
	drainers, names := m.workDrainers()
	var errs []error
	for i, d := range drainers {
		if err := d.DrainWork(ctx); err != nil {
			errs = append(errs, fmt.Errorf("drain channel %q: %w", names[i], err))
		}
	}
	return len(drainers) > 0, errors.Join(errs...)
}

// WorkDrained returns a channel closed once any running WorkDrainer is
// drained (the host then stops), or nil when no channel can drain. What
// it starts to watch several channels ends when stop is closed.
func (m *Manager) WorkDrained(stop <-chan struct{}) <-chan struct{} {
	drainers, _ := m.workDrainers()
	switch len(drainers) {
	case 0:
		return nil
	case 1:
		return drainers[0].WorkDrained()
	}
	cases := make([]reflect.SelectCase, 0, len(drainers)+1)
	for _, d := range drainers {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.WorkDrained())})
	}
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(stop)})
	done := make(chan struct{})
	go func() {
		if i, _, _ := reflect.Select(cases); i < len(drainers) {
			close(done)
		}
	}()
	return done
}

// workDrainers returns the started channels that are WorkDrainers, with
// their names, in the order they were added.
func (m *Manager) workDrainers() ([]WorkDrainer, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started {
		return nil, nil
	}
	var out []WorkDrainer
	var names []string
	for _, name := range m.order {
		if d, ok := m.channels[name].ch.(WorkDrainer); ok {
			out, names = append(out, d), append(names, name)
		}
	}
	return out, names
}
