package channels_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// fakeChannel is a real in-memory Channel for the tests: it records every
// call, reports successful sends on delivered, and can be told to fail or
// block. Set its knobs before the Manager starts it.
type fakeChannel struct {
	channels.Base

	startErr error // returned by Start
	stopErr  error // returned by Stop
	// stopWaitsForCtx makes Stop wait for its context to end and return
	// ctx.Err(), as a channel whose shutdown does not finish in time.
	stopWaitsForCtx bool
	// stopBlocks, when set, makes Stop wait for it to be closed, whatever
	// its context says (a misbehaving channel).
	stopBlocks chan struct{}
	// sendErrs are returned by successive Send calls; once used up, Send
	// succeeds.
	sendErrs []error
	// onSend, when set, replaces sendErrs: its result is Send's.
	onSend func(ctx context.Context, msg bus.OutboundMessage) error

	delivered chan bus.OutboundMessage // every message sent successfully
	sending   chan bus.OutboundMessage // every Send call, as it begins

	mu     sync.Mutex
	starts int
	stops  int
	tries  int
	sent   []bus.OutboundMessage
}

var _ channels.Channel = (*fakeChannel)(nil)
var _ channels.AllowLister = (*fakeChannel)(nil)

func newFake(name string, b *bus.Bus, allowFrom ...string) *fakeChannel {
	if allowFrom == nil {
		allowFrom = []string{"*"}
	}
	return &fakeChannel{
		Base:      channels.NewBase(name, allowFrom, b, nil),
		delivered: make(chan bus.OutboundMessage, 1024),
		sending:   make(chan bus.OutboundMessage, 1024),
	}
}

func (f *fakeChannel) Start(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	return f.startErr
}

func (f *fakeChannel) Stop(ctx context.Context) error {
	f.mu.Lock()
	f.stops++
	f.mu.Unlock()
	if f.stopBlocks != nil {
		<-f.stopBlocks
	}
	if f.stopWaitsForCtx {
		<-ctx.Done()
		return ctx.Err()
	}
	return f.stopErr
}

func (f *fakeChannel) Send(ctx context.Context, msg bus.OutboundMessage) error {
	f.sending <- msg
	f.mu.Lock()
	f.tries++
	var err error
	switch {
	case f.onSend != nil:
	case len(f.sendErrs) > 0:
		err, f.sendErrs = f.sendErrs[0], f.sendErrs[1:]
	}
	onSend := f.onSend
	f.mu.Unlock()
	if onSend != nil {
		err = onSend(ctx, msg)
	}
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.sent = append(f.sent, msg)
	f.mu.Unlock()
	f.delivered <- msg
	return nil
}

// counts returns how often Start, Stop and Send were called.
func (f *fakeChannel) counts() (starts, stops, tries int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts, f.stops, f.tries
}

// sentMessages returns the messages sent successfully, in order.
func (f *fakeChannel) sentMessages() []bus.OutboundMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]bus.OutboundMessage(nil), f.sent...)
}

// bareChannel is a Channel without AllowFrom: the Manager has no list to
// check.
type bareChannel struct{ name string }

func (c bareChannel) Name() string                                  { return c.name }
func (bareChannel) Start(context.Context) error                     { return nil }
func (bareChannel) Stop(context.Context) error                      { return nil }
func (bareChannel) Send(context.Context, bus.OutboundMessage) error { return nil }

// waitTimeout bounds every wait for an event, so that a broken test fails
// instead of hanging. Inside a synctest bubble it is fake time.
const waitTimeout = 10 * time.Second

// receive returns the next value from ch, failing the test if none comes.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// none fails the test if ch holds a value.
func none[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected %s: %v", what, v)
	default:
	}
}

// testManager is a Manager with its bus and a channel collecting the
// dispatch errors it reports. Cleanup stops it and closes the bus.
type testManager struct {
	*channels.Manager
	bus    *bus.Bus
	errors chan *channels.DispatchError
}

func newTestManager(t *testing.T, b *bus.Bus, cfg channels.ManagerConfig, chans ...channels.Channel) *testManager {
	t.Helper()
	tm := &testManager{bus: b, errors: make(chan *channels.DispatchError, 1024)}
	cfg.OnDispatchError = func(de *channels.DispatchError) { tm.errors <- de }
	tm.Manager = channels.NewManager(b, cfg)
	for _, ch := range chans {
		if err := tm.Add(ch); err != nil {
			t.Fatalf("Add(%q): %v", ch.Name(), err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		_ = tm.Stop(ctx)
		_ = b.Close()
	})
	return tm
}

// publish puts msg on the bus for the Manager to dispatch.
func (tm *testManager) publish(t *testing.T, msg bus.OutboundMessage) {
	t.Helper()
	if err := tm.bus.PublishOutbound(t.Context(), msg); err != nil {
		t.Fatalf("PublishOutbound: %v", err)
	}
}

// stop stops the Manager, failing the test on error. After it returns the
// dispatcher and workers have finished, so every report has been made.
func (tm *testManager) stop(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := tm.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
}
