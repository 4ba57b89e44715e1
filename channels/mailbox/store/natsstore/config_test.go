package natsstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/config"
)

func TestDecodeConfigDefaults(t *testing.T) {
	cfg, err := natsstore.DecodeConfig(nil)
	require.NoError(t, err)
	assert.Equal(t, natsstore.DefaultConfig(), cfg)
	assert.Equal(t, "nats://127.0.0.1:4222", cfg.URL)
}

func TestDecodeConfigValues(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "coder.creds")
	require.NoError(t, os.WriteFile(creds, []byte("x"), 0o600))
	cfg, err := natsstore.DecodeConfig(map[string]any{
		"url": "tls://a:4222,tls://b:4222", "credentials": creds, "stream": "MBX",
		"subject_prefix": "team.mail", "ackWait": "45", "maxDeliver": 7, "replicas": 3,
		"tls": map[string]any{"ca": creds},
	})
	require.NoError(t, err)
	assert.Equal(t, "team.mail", cfg.SubjectPrefix, "snake_case keys are accepted")
	assert.Equal(t, 45.0, cfg.AckWait, "numbers from the environment")
	assert.Equal(t, 7, cfg.MaxDeliver)
	assert.Equal(t, creds, cfg.TLS.CA)
}

// TestHistoryConfig: the history stream's keys and what the store options
// make of them (0 and -1: no bound, which the options say with -1).
func TestHistoryConfig(t *testing.T) {
	def := natsstore.DefaultConfig()
	assert.Equal(t, "MAILBOX_HISTORY", def.HistoryStream)
	assert.Equal(t, 30*24*3600.0, def.HistoryMaxAge)
	assert.Equal(t, int64(1<<30), def.HistoryMaxBytes)
	o := def.Options(nil)
	assert.Equal(t, 30*24*time.Hour, o.HistoryMaxAge)
	assert.Equal(t, int64(1<<30), o.HistoryMaxBytes)
	assert.False(t, o.AuditLog, "the mailbox's auditLog decides")

	for _, none := range []float64{0, -1} {
		cfg, err := natsstore.DecodeConfig(map[string]any{"history_stream": "HIST", "historyMaxAge": none,
			"historyMaxBytes": int64(none)})
		require.NoError(t, err)
		assert.Equal(t, "HIST", cfg.HistoryStream)
		o := cfg.Options(nil)
		assert.Equal(t, time.Duration(-1), o.HistoryMaxAge, "no bound")
		assert.Equal(t, int64(-1), o.HistoryMaxBytes, "no bound")
	}
}

// TestDecodeConfigErrorsNameTheKey: every bad value is reported with its
// full key path.
func TestDecodeConfigErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"url": ""}, "channels.mailbox.nats.url: required"},
		{map[string]any{"url": "http://x:1"}, "channels.mailbox.nats.url: \"http://x:1\""},
		{map[string]any{"credentials": "/nonexistent/a.creds"}, "channels.mailbox.nats.credentials: cannot read"},
		{map[string]any{"nkey": "/nonexistent/seed"}, "channels.mailbox.nats.nkey: cannot read"},
		{map[string]any{"tls": map[string]any{"cert": "/nonexistent/c.pem"}}, "channels.mailbox.nats.tls: cert and key go together"},
		{map[string]any{"tls": map[string]any{"ca": "/nonexistent/ca.pem"}}, "channels.mailbox.nats.tls.ca: cannot read"},
		{map[string]any{"stream": "MAIL.BOX"}, "channels.mailbox.nats.stream"},
		{map[string]any{"subjectPrefix": "mail.*"}, "channels.mailbox.nats.subjectPrefix"},
		{map[string]any{"stateBucket": "mailbox-registry"}, "channels.mailbox.nats.stateBucket: \"mailbox-registry\" is also channels.mailbox.nats.registryBucket"},
		{map[string]any{"lockBucket": "a b"}, "channels.mailbox.nats.lockBucket"},
		{map[string]any{"ackWait": 0}, "channels.mailbox.nats.ackWait: want a number of seconds"},
		{map[string]any{"lockTtl": 0.5}, "channels.mailbox.nats.lockTtl"},
		{map[string]any{"maxDeliver": 0}, "channels.mailbox.nats.maxDeliver: want at least 1"},
		{map[string]any{"replicas": 6}, "channels.mailbox.nats.replicas: want 1 to 5"},
		{map[string]any{"historyStream": "MAILBOX"}, "channels.mailbox.nats.historyStream: \"MAILBOX\" is also channels.mailbox.nats.stream"},
		{map[string]any{"historyStream": "HIST ORY"}, "channels.mailbox.nats.historyStream"},
		{map[string]any{"historyMaxAge": 0.5}, "channels.mailbox.nats.historyMaxAge: want a number of seconds from 1 to 31536000 (1 year), or 0 or -1 for no bound, got 0.5"},
		{map[string]any{"historyMaxAge": -2}, "channels.mailbox.nats.historyMaxAge"},
		{map[string]any{"historyMaxBytes": 1000}, "channels.mailbox.nats.historyMaxBytes: want at least 1048576 bytes (0 or -1: no bound)"},
		{map[string]any{"historyMaxBytes": -5}, "channels.mailbox.nats.historyMaxBytes"},
		{map[string]any{"ackWait": "soon"}, "channels.mailbox.nats.ackWait"},
		{map[string]any{"ulr": "nats://x:1"}, "channels.mailbox.nats.ulr"},
	}
	for _, c := range cases {
		_, err := natsstore.DecodeConfig(c.raw)
		require.Error(t, err, "%v", c.raw)
		assert.Contains(t, err.Error(), c.want, "%v", c.raw)
	}
	_, err := natsstore.DecodeConfig(map[string]any{"ulr": "x"})
	assert.ErrorIs(t, err, config.ErrUnknownKey)
}

// TestOpenFromStoreConfig: store.Open("nats", ...) decodes the backend's
// own section, and a connection failure names the key.
func TestOpenFromStoreConfig(t *testing.T) {
	t.Parallel()
	_, err := store.Open(natsstore.BackendName, driver.Config{AgentID: "carol",
		Section: config.Section{Path: natsstore.ConfigPath, Raw: map[string]any{"url": "nats://127.0.0.1:1", "connectTimeout": 1}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "channels.mailbox.nats.url")
	_, err = store.Open(natsstore.BackendName, driver.Config{AgentID: "carol",
		Section: config.Section{Path: natsstore.ConfigPath, Raw: map[string]any{"ackWait": 0}}})
	assert.ErrorContains(t, err, "channels.mailbox.nats.ackWait")
}

// TestDecodeConfigExpandsHome: file paths may start with "~/", as the
// mailbox root may.
func TestDecodeConfigExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	creds := filepath.Join(home, "coder.creds")
	require.NoError(t, os.WriteFile(creds, []byte("x"), 0o600))
	cfg, err := natsstore.DecodeConfig(map[string]any{"credentials": "~/coder.creds",
		"tls": map[string]any{"ca": "~/coder.creds"}})
	require.NoError(t, err)
	assert.Equal(t, creds, cfg.Credentials)
	assert.Equal(t, creds, cfg.TLS.CA)

	_, err = natsstore.DecodeConfig(map[string]any{"nkey": "~/missing.nk"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "channels.mailbox.nats.nkey")
	assert.Contains(t, err.Error(), filepath.Join(home, "missing.nk"), "the error names the expanded path")
}
