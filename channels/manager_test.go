package channels_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// fakeSection is the config section of the fake channel type.
type fakeSection struct {
	Enabled   bool     `json:"enabled"`
	AllowFrom []string `json:"allowFrom"`
}

// fakeFactory returns a Factory that decodes a fakeSection and builds a
// fakeChannel named after the section (the channel type). It records the
// Deps it was given in deps, keyed by channel name.
func fakeFactory(name string, deps map[string]channels.Deps) channels.Factory {
	return func(section config.Section, d channels.Deps) (channels.Channel, error) {
		cfg := fakeSection{AllowFrom: []string{"*"}}
		if err := section.Decode(&cfg); err != nil {
			return nil, err
		}
		if deps != nil {
			deps[name] = d
		}
		return newFake(name, d.Bus, cfg.AllowFrom...), nil
	}
}

func section(name string, raw map[string]any) config.Section {
	return config.Section{Path: "channels." + name, Raw: raw}
}

func TestManagerBuild(t *testing.T) {
	errBroken := errors.New("channels.broken.token: missing")
	tests := []struct {
		name      string
		sections  map[string]map[string]any
		wantNames []string
		wantErr   string // substring of the error; "" for success
		wantIs    error  // errors.Is target, if any
	}{
		{
			name:      "no channels",
			sections:  nil,
			wantNames: []string{},
		},
		{
			name: "enabled built, disabled and unset skipped",
			sections: map[string]map[string]any{
				"alpha": {"enabled": true},
				"beta":  {"enabled": false},
				"gamma": {},
			},
			wantNames: []string{"alpha"},
		},
		{
			name: "built in name order",
			sections: map[string]map[string]any{
				"gamma": {"enabled": true},
				"alpha": {"enabled": true},
				"beta":  {"enabled": true},
			},
			wantNames: []string{"alpha", "beta", "gamma"},
		},
		{
			name: "enabled given as a string by the environment",
			sections: map[string]map[string]any{
				"alpha": {"enabled": "true"},
				"beta":  {"enabled": "false"},
			},
			wantNames: []string{"alpha"},
		},
		{
			name: "unknown type names the key path",
			sections: map[string]map[string]any{
				"alpha": {"enabled": true},
				"x":     {"enabled": true},
			},
			wantErr: `channels.x: unknown channel type "x" (forgotten import?)`,
		},
		{
			name: "unknown type disabled is ignored",
			sections: map[string]map[string]any{
				"alpha": {"enabled": true},
				"x":     {"enabled": false},
			},
			wantNames: []string{"alpha"},
		},
		{
			name: "factory error propagated",
			sections: map[string]map[string]any{
				"broken": {"enabled": true},
			},
			wantErr: "channels.broken.token: missing",
			wantIs:  errBroken,
		},
		{
			name: "bad section reported by the factory's decode",
			sections: map[string]map[string]any{
				"alpha": {"enabled": true, "bogus": 1},
			},
			wantErr: "channels.alpha.bogus",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := channels.NewRegistry()
			for _, typ := range []string{"alpha", "beta", "gamma"} {
				reg.Register(typ, fakeFactory(typ, nil))
			}
			reg.Register("broken", factoryReturning(errBroken))
			cfg := config.Default()
			for name, raw := range tt.sections {
				cfg.Channels[name] = section(name, raw)
			}

			m := channels.NewManager(bus.New(1), channels.ManagerConfig{})
			err := m.Build(reg, cfg)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				if tt.wantIs != nil {
					assert.ErrorIs(t, err, tt.wantIs)
				}
				return
			}
			require.NoError(t, err)
			if len(tt.wantNames) == 0 {
				assert.Empty(t, m.Names())
			} else {
				assert.Equal(t, tt.wantNames, m.Names())
			}
			for _, name := range tt.wantNames {
				ch, ok := m.Channel(name)
				require.True(t, ok, "Channel(%q)", name)
				assert.Equal(t, name, ch.Name())
			}
		})
	}
}

func TestManagerBuildPassesDeps(t *testing.T) {
	deps := map[string]channels.Deps{}
	reg := channels.NewRegistry()
	reg.Register("alpha", fakeFactory("alpha", deps))
	cfg := config.Default()
	cfg.Channels["alpha"] = section("alpha", map[string]any{"enabled": true, "allowFrom": []any{"alice"}})

	b := bus.New(1)
	m := channels.NewManager(b, channels.ManagerConfig{}) // nil Logger
	require.NoError(t, m.Build(reg, cfg))

	d := deps["alpha"]
	assert.Same(t, b, d.Bus)
	assert.Same(t, cfg, d.Config)
	assert.NotNil(t, d.Logger, "the Manager passes a logger even when given none")

	ch, ok := m.Channel("alpha")
	require.True(t, ok)
	assert.Equal(t, []string{"alice"}, ch.(channels.AllowLister).AllowFrom(), "the factory decoded its section")
}

func TestManagerBuildDuplicateName(t *testing.T) {
	reg := channels.NewRegistry()
	reg.Register("alpha", fakeFactory("alpha", nil))
	cfg := config.Default()
	cfg.Channels["alpha"] = section("alpha", map[string]any{"enabled": true})

	b := bus.New(1)
	m := channels.NewManager(b, channels.ManagerConfig{})
	require.NoError(t, m.Add(newFake("alpha", b)))
	err := m.Build(reg, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"alpha"`)
}

func TestManagerAdd(t *testing.T) {
	b := bus.New(1)
	m := channels.NewManager(b, channels.ManagerConfig{})
	require.NoError(t, m.Add(newFake("a", b)))
	require.NoError(t, m.Add(bareChannel{name: "b"}))

	err := m.Add(newFake("a", b))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `add channel "a"`)

	_, ok := m.Channel("nope")
	assert.False(t, ok)
	assert.Equal(t, []string{"a", "b"}, m.Names())

	require.NoError(t, m.Start(t.Context()))
	t.Cleanup(func() { _ = m.Stop(t.Context()) })
	err = m.Add(newFake("c", b))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already started")
	assert.Equal(t, []string{"a", "b"}, m.Names())
}

func TestManagerStartRefusesEmptyAllowFrom(t *testing.T) {
	tests := []struct {
		name      string
		allowFrom []string
		wantErr   bool
	}{
		{name: "empty list", allowFrom: []string{}, wantErr: true},
		{name: "star", allowFrom: []string{"*"}},
		{name: "listed ids", allowFrom: []string{"alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(1)
			ok := newFake("ok", b)
			ch := &fakeChannel{Base: channels.NewBase("feishu", tt.allowFrom, b, nil)}
			m := newTestManager(t, b, channels.ManagerConfig{}, ok, ch, bareChannel{name: "bare"})

			err := m.Start(t.Context())
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "channels.feishu.allowFrom"), "error %q names the key", err)
			for _, f := range []*fakeChannel{ok, ch} {
				starts, _, _ := f.counts()
				assert.Zero(t, starts, "no channel starts when one is refused")
			}
			require.NoError(t, m.Stop(t.Context()), "nothing to stop")
		})
	}
}

func TestManagerStartFailureStopsStartedChannels(t *testing.T) {
	errStart := errors.New("login failed")
	b := bus.New(1)
	first, second, third := newFake("first", b), newFake("second", b), newFake("third", b)
	second.startErr = errStart
	m := newTestManager(t, b, channels.ManagerConfig{}, first, second, third)

	err := m.Start(t.Context())
	require.ErrorIs(t, err, errStart)
	assert.Contains(t, err.Error(), `start channel "second"`)

	tests := []struct {
		ch                      *fakeChannel
		wantStarts, wantStopped int
	}{
		{ch: first, wantStarts: 1, wantStopped: 1},  // started, then stopped again
		{ch: second, wantStarts: 1, wantStopped: 0}, // failed to start
		{ch: third, wantStarts: 0, wantStopped: 0},  // never reached
	}
	for _, tt := range tests {
		t.Run(tt.ch.Name(), func(t *testing.T) {
			starts, stops, _ := tt.ch.counts()
			assert.Equal(t, tt.wantStarts, starts, "starts")
			assert.Equal(t, tt.wantStopped, stops, "stops")
		})
	}

	// The manager is not running: Send says so, and Stop has nothing to do.
	err = m.Send(t.Context(), bus.OutboundMessage{Channel: "first", ChatID: "c"})
	require.ErrorIs(t, err, channels.ErrNotRunning)
	require.NoError(t, m.Stop(t.Context()))
	_, stops, _ := first.counts()
	assert.Equal(t, 1, stops, "not stopped twice")
}

func TestManagerStartTwice(t *testing.T) {
	b := bus.New(1)
	m := newTestManager(t, b, channels.ManagerConfig{}, newFake("a", b))
	require.NoError(t, m.Start(t.Context()))
	err := m.Start(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already started")
}
