package store

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	var r Backends
	assert.False(t, r.Known("x"))
	_, err := r.Open("x", Config{})
	require.ErrorContains(t, err, `unknown mailbox backend "x" (known: []; forgotten import?)`)
	boom := errors.New("boom")
	var got Config
	r.Register("x", func(cfg Config) (driver.Backend, error) { got = cfg; return nil, boom })
	assert.Equal(t, []string{"x"}, r.Names())
	_, err = r.Open("x", Config{AgentID: "a"})
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, "a", got.AgentID)
	assert.Panics(t, func() { r.Register("x", func(Config) (driver.Backend, error) { return nil, nil }) })
	assert.Panics(t, func() { r.Register("", func(Config) (driver.Backend, error) { return nil, nil }) })
	assert.Panics(t, func() { r.Register("y", nil) })
	assert.Equal(t, "the x store", r.Where("x", Config{}))
	r.RegisterWhere("x", func(c Config) string { return "at " + c.Root })
	assert.Equal(t, "at /r", r.Where("x", Config{Root: "/r"}))
	assert.Panics(t, func() { r.RegisterWhere("x", nil) })
}
