package channels_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// errFactory is what the factories of these tests return, to tell which
// one was called.
var errFactory = errors.New("factory called")

func factoryReturning(err error) channels.Factory {
	return func(config.Section, channels.Deps) (channels.Channel, error) { return nil, err }
}

func TestRegistryRegisterPanics(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		factory channels.Factory
		want    string // the panic message
	}{
		{
			name:    "empty type name",
			typ:     "",
			factory: factoryReturning(nil),
			want:    "channels: Register with an empty type name",
		},
		{
			name:    "nil factory",
			typ:     "feishu",
			factory: nil,
			want:    `channels: Register of type "feishu" with a nil factory`,
		},
		{
			name:    "duplicate",
			typ:     "dup",
			factory: factoryReturning(nil),
			want:    `channels: Register called twice for type "dup"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := channels.NewRegistry()
			r.Register("dup", factoryReturning(nil))
			assert.PanicsWithValue(t, tt.want, func() { r.Register(tt.typ, tt.factory) })
			assert.Equal(t, []string{"dup"}, r.Types(), "a refused Register changes nothing")
		})
	}
}

func TestRegistryLookup(t *testing.T) {
	r := channels.NewRegistry()
	errA, errB := errors.New("a"), errors.New("b")
	r.Register("a", factoryReturning(errA))
	r.Register("b", factoryReturning(errB))

	tests := []struct {
		name    string
		typ     string
		wantErr string // exact error text; "" for found
		calls   error  // what the found factory returns
	}{
		{name: "first", typ: "a", calls: errA},
		{name: "second", typ: "b", calls: errB},
		{name: "unknown", typ: "x", wantErr: `unknown channel type "x" (forgotten import?)`},
		{name: "case-sensitive", typ: "A", wantErr: `unknown channel type "A" (forgotten import?)`},
		{name: "empty", typ: "", wantErr: `unknown channel type "" (forgotten import?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := r.Lookup(tt.typ)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Nil(t, f)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, f)
			_, ferr := f(config.Section{}, channels.Deps{})
			assert.ErrorIs(t, ferr, tt.calls, "Lookup returns the factory registered under the name")
		})
	}
}

func TestRegistryTypes(t *testing.T) {
	tests := []struct {
		name     string
		register []string
		want     []string
	}{
		{name: "empty", register: nil, want: []string{}},
		{name: "one", register: []string{"mailbox"}, want: []string{"mailbox"}},
		{name: "sorted", register: []string{"zeta", "feishu", "mailbox", "Alpha"}, want: []string{"Alpha", "feishu", "mailbox", "zeta"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := channels.NewRegistry()
			for _, typ := range tt.register {
				r.Register(typ, factoryReturning(nil))
			}
			assert.Equal(t, tt.want, r.Types())
		})
	}
}

// defaultType is registered in the default registry once per test binary,
// from init as channel packages do (a test function would panic on the
// duplicate under -count=2).
const defaultType = "channels-test-default"

func init() {
	channels.Register(defaultType, factoryReturning(errFactory))
}

func TestDefaultRegistry(t *testing.T) {
	require.NotNil(t, channels.DefaultRegistry())
	assert.Contains(t, channels.Types(), defaultType)
	assert.Equal(t, channels.DefaultRegistry().Types(), channels.Types())
	assert.IsNonDecreasing(t, channels.Types())

	f, err := channels.Lookup(defaultType)
	require.NoError(t, err)
	_, ferr := f(config.Section{}, channels.Deps{})
	assert.ErrorIs(t, ferr, errFactory)

	f, err = channels.DefaultRegistry().Lookup(defaultType)
	require.NoError(t, err)
	_, ferr = f(config.Section{}, channels.Deps{})
	assert.ErrorIs(t, ferr, errFactory)

	_, err = channels.Lookup("x")
	require.EqualError(t, err, `unknown channel type "x" (forgotten import?)`)

	assert.PanicsWithValue(t, `channels: Register called twice for type "`+defaultType+`"`, func() {
		channels.Register(defaultType, factoryReturning(nil))
	})
}

// TestDecodedFactoryAndChecker: the Factory of Decoded builds from what
// decode read; both refuse, with decode's error, a section it refuses.
func TestDecodedFactoryAndChecker(t *testing.T) {
	t.Parallel()
	errBad := errors.New("channels.x.port: not a number")
	decode := func(s config.Section) (string, error) {
		if s.Raw["port"] == "bad" {
			return "", errBad
		}
		return s.Path, nil
	}
	var built string
	factory, check := channels.Decoded(decode, func(cfg string, deps channels.Deps) (*fakeChannel, error) {
		built = cfg
		return newFake("x", deps.Bus), nil
	})
	good := config.Section{Path: "channels.x", Raw: map[string]any{"port": "80"}}
	require.NoError(t, check(good))
	ch, err := factory(good, channels.Deps{})
	require.NoError(t, err)
	assert.Equal(t, "x", ch.Name())
	assert.Equal(t, "channels.x", built, "the factory builds from what decode read")

	bad := config.Section{Path: "channels.x", Raw: map[string]any{"port": "bad"}}
	assert.ErrorIs(t, check(bad), errBad)
	_, err = factory(bad, channels.Deps{})
	assert.ErrorIs(t, err, errBad, "the factory refuses what the checker refuses")
}
