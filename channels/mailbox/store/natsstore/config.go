package natsstore

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/switchboard-dev/switchboard/config"
)

// ConfigPath is the key path of the section Config decodes.
const ConfigPath = "channels.mailbox.nats"

// Config is the channels.mailbox.nats section. Durations are seconds.
type Config struct {
	// URL names the server(s): "nats://host:4222", several separated by
	// commas; "tls://" requires TLS.
	URL string `json:"url"`
	// Credentials is a .creds file (JWT and nkey seed) for this agent.
	Credentials string `json:"credentials"`
	// NKey is an nkey seed file, for servers that list users by nkey.
	NKey string `json:"nkey"`
	// TLS names the CA that signs the server's certificate and this
	// client's own certificate and key, for servers that verify clients.
	TLS TLSConfig `json:"tls"`
	// Stream is the JetStream stream of the mailbox subjects.
	Stream string `json:"stream"`
	// SubjectPrefix starts every mailbox subject.
	SubjectPrefix string `json:"subjectPrefix"`
	// The KV buckets of the cards, of presence, of the agents' state and
	// of the inbox locks.
	RegistryBucket string `json:"registryBucket"`
	PresenceBucket string `json:"presenceBucket"`
	StateBucket    string `json:"stateBucket"`
	LockBucket     string `json:"lockBucket"`
	// ArtifactsBucket is the object store of the artifacts.
	ArtifactsBucket string `json:"artifactsBucket"`
	// AckWait is how long a message handed out may go without an
	// acknowledgement or a sign of progress before it is redelivered.
	AckWait float64 `json:"ackWait"`
	// MaxDeliver is how many times a message is handed out before it is
	// set aside as poison.
	MaxDeliver int `json:"maxDeliver"`
	// Replicas is the replication of the stream and buckets on a cluster.
	Replicas int `json:"replicas"`
	// LockTTL is how long an inbox stays locked after its owner stops
	// renewing the lock (crashed on another machine). A lock bucket made
	// with a shorter TTL is raised to it where the user may (see
	// Store.readLockTTLs); the locks are renewed by the shorter of the two.
	LockTTL float64 `json:"lockTtl"`
	// ConnectTimeout bounds connecting to the server.
	ConnectTimeout float64 `json:"connectTimeout"`
	// User and Password, for servers that list users with passwords
	// (prefer credentials or nkey).
	User     string `json:"user"`
	Password string `json:"password"`
	// InboxPrefix starts the subjects replies come back on; give each agent
	// its own ("_INBOX_coder") and allow it only that one to subscribe to,
	// so no agent can read another's replies. Empty: "_INBOX".
	InboxPrefix string `json:"inboxPrefix"`
	// History keeps the history stream: a copy of every message
	// (republished by the server from Stream), the audit log and the
	// swept markers, which threads, replies owed, task archives and the
	// audit log read. false: no history stream is made and a new Stream
	// republishes nothing (an existing Stream's republish is left as it
	// is); browsing, the audit log and task sweeps then fail with an
	// error naming this key, and the mailbox's auditLog writes nothing,
	// having no stream to write to.
	History bool `json:"history"`
	// HistoryStream is the name of the history stream.
	HistoryStream string `json:"historyStream"`
	// HistoryMaxAge (seconds) and HistoryMaxBytes bound the history
	// stream; the oldest entries go first. 0 or -1: no bound.
	HistoryMaxAge   float64 `json:"historyMaxAge"`
	HistoryMaxBytes int64   `json:"historyMaxBytes"`
}

// TLSConfig holds file paths, all optional.
type TLSConfig struct {
	CA   string `json:"ca"`
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// DefaultConfig returns the defaults: a local server, stream MAILBOX,
// prefix "mailbox", buckets mailbox-registry, -presence, -state and -locks,
// object store mailbox-artifacts,
// ackWait 30, maxDeliver 5, 1 replica, lockTtl 15, connectTimeout 5,
// the history on, in stream MAILBOX_HISTORY kept 30 days and at most
// 1 GiB.
func DefaultConfig() Config {
	return Config{
		URL: nats.DefaultURL, Stream: "MAILBOX", SubjectPrefix: "mailbox",
		RegistryBucket: "mailbox-registry", PresenceBucket: "mailbox-presence",
		StateBucket: "mailbox-state", LockBucket: "mailbox-locks", ArtifactsBucket: "mailbox-artifacts",
		AckWait: 30, MaxDeliver: 5, Replicas: 1, LockTTL: 60, ConnectTimeout: 5,
		History: true, HistoryStream: "MAILBOX_HISTORY", HistoryMaxAge: 30 * 24 * 3600, HistoryMaxBytes: 1 << 30,
	}
}

// Bounds of the duration keys (seconds): at least a second, at most a day
// for waits, an hour to connect and a year of history, so that no value
// overflows a time.Duration.
var (
	waitRange       = config.SecondsRange{Min: 1, Max: config.Day}
	connectRange    = config.SecondsRange{Min: 1, Max: config.Hour}
	historyAgeRange = config.SecondsRange{Min: 1, Max: config.Year, Zero: "no bound"}
)

// minHistoryBytes is the smallest bound of the history stream's size.
const minHistoryBytes = 1 << 20

// DecodeConfig decodes and validates a channels.mailbox.nats section over
// the defaults. Errors name the key ("channels.mailbox.nats.ackWait: ...").
func DecodeConfig(raw map[string]any) (Config, error) {
	return DecodeSection(config.Section{Path: ConfigPath, Raw: raw})
}

// DecodeSection is DecodeConfig for the section as the config loader gives
// it, so that an error names the environment variable that set a key.
func DecodeSection(s config.Section) (Config, error) {
	cfg := DefaultConfig()
	if err := s.Decode(&cfg); err != nil {
		return Config{}, err
	}
	for name, p := range map[string]*string{"credentials": &cfg.Credentials, "nkey": &cfg.NKey,
		"tls.ca": &cfg.TLS.CA, "tls.cert": &cfg.TLS.Cert, "tls.key": &cfg.TLS.Key} {
		expanded, err := config.ExpandHome(*p)
		if err != nil {
			return Config{}, fmt.Errorf("%s.%s: %w", ConfigPath, name, err)
		}
		*p = expanded
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// validName reports whether s is a stream or bucket name: 1 to 64
// letters, digits, '-' and '_'. validPrefix: subject tokens of those
// joined by '.'. Checked by hand: every agent checks its config as it
// starts, and compiling regular expressions for them was 1 % of a
// thousand agents' start.
func validName(s string) bool { return len(s) <= 64 && validToken(s) }

func validPrefix(s string) bool {
	for token := range strings.SplitSeq(s, ".") {
		if !validToken(token) {
			return false
		}
	}
	return true
}

// validToken reports whether s is one or more letters, digits, '-' and '_'.
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return s != ""
}

// Validate checks the values; every error names its key.
func (c *Config) Validate() error {
	key := func(name string) string { return ConfigPath + "." + name }
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key(name)}, args...)...))
	}
	if strings.TrimSpace(c.URL) == "" {
		bad("url", "required, e.g. nats://127.0.0.1:4222")
	}
	for _, u := range strings.Split(c.URL, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || p.Host == "" || !slices.Contains([]string{"nats", "tls", "ws", "wss"}, p.Scheme) {
			bad("url", "%q: want nats://host:port (or tls://, ws://, wss://)", u)
		}
	}
	if c.Credentials != "" && c.NKey != "" {
		bad("nkey", "give credentials or nkey, not both")
	}
	if c.InboxPrefix != "" && !validPrefix(c.InboxPrefix) {
		bad("inboxPrefix", "%q: want subject tokens of letters, digits, '-' or '_' joined by '.'", c.InboxPrefix)
	}
	for name, path := range map[string]string{"credentials": c.Credentials, "nkey": c.NKey,
		"tls.ca": c.TLS.CA, "tls.cert": c.TLS.Cert, "tls.key": c.TLS.Key} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			bad(name, "cannot read %s: %v", path, errors.Unwrap(err))
		}
	}
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		bad("tls", "cert and key go together: give both or neither")
	}
	if !validName(c.Stream) {
		bad("stream", "%q: want 1 to 64 letters, digits, '-' or '_'", c.Stream)
	}
	if !validName(c.HistoryStream) {
		bad("historyStream", "%q: want 1 to 64 letters, digits, '-' or '_'", c.HistoryStream)
	} else if c.HistoryStream == c.Stream {
		bad("historyStream", "%q is also %s; the history needs its own stream", c.HistoryStream, key("stream"))
	}
	if v := c.HistoryMaxAge; v != -1 && historyAgeRange.Problem(v) != "" {
		bad("historyMaxAge", "want a number of seconds from 1 to %d (1 year), or 0 or -1 for no bound, got %v", config.Year, v)
	}
	if v := c.HistoryMaxBytes; v != 0 && v != -1 && v < minHistoryBytes {
		bad("historyMaxBytes", "want at least %d bytes (0 or -1: no bound), got %d", minHistoryBytes, v)
	}
	if !validPrefix(c.SubjectPrefix) {
		bad("subjectPrefix", "%q: want subject tokens of letters, digits, '-' or '_' joined by '.'", c.SubjectPrefix)
	}
	buckets := map[string]string{}
	for _, b := range [][2]string{{"registryBucket", c.RegistryBucket}, {"presenceBucket", c.PresenceBucket},
		{"stateBucket", c.StateBucket}, {"lockBucket", c.LockBucket}, {"artifactsBucket", c.ArtifactsBucket}} {
		if !validName(b[1]) {
			bad(b[0], "%q: want 1 to 64 letters, digits, '-' or '_'", b[1])
		} else if other, dup := buckets[b[1]]; dup {
			bad(b[0], "%q is also %s; each bucket needs its own name", b[1], key(other))
		}
		buckets[b[1]] = b[0]
	}
	for _, d := range []struct {
		name string
		v    float64
		r    config.SecondsRange
	}{{"ackWait", c.AckWait, waitRange}, {"lockTtl", c.LockTTL, waitRange}, {"connectTimeout", c.ConnectTimeout, connectRange}} {
		if p := d.r.Problem(d.v); p != "" {
			bad(d.name, "%s", p)
		}
	}
	if c.MaxDeliver < 1 {
		bad("maxDeliver", "want at least 1, got %d", c.MaxDeliver)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		bad("replicas", "want 1 to 5, got %d", c.Replicas)
	}
	return errors.Join(errs...)
}

// Connect connects to the configured server as agent (the name the server
// shows for the connection), reconnecting for ever after a loss.
func (c *Config) Connect(agent string) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("switchboard mailbox " + agent),
		nats.Timeout(seconds(c.ConnectTimeout)),
		nats.MaxReconnects(-1),
	}
	if c.Credentials != "" {
		opts = append(opts, nats.UserCredentials(c.Credentials))
	}
	if c.User != "" {
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(c.InboxPrefix))
	}
	if c.NKey != "" {
		opt, err := nats.NkeyOptionFromSeed(c.NKey)
		if err != nil {
			return nil, fmt.Errorf("%s.nkey: %w", ConfigPath, err)
		}
		opts = append(opts, opt)
	}
	if c.TLS.CA != "" {
		opts = append(opts, nats.RootCAs(c.TLS.CA))
	}
	if c.TLS.Cert != "" {
		opts = append(opts, nats.ClientCert(c.TLS.Cert, c.TLS.Key))
	}
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s (%s.url): %w", c.URL, ConfigPath, err)
	}
	return nc, nil
}

// Options returns the store options the config sets, on connection nc.
func (c *Config) Options(nc *nats.Conn) Options {
	return Options{
		Conn: nc, Stream: c.Stream, SubjectPrefix: c.SubjectPrefix,
		RegistryBucket: c.RegistryBucket, PresenceBucket: c.PresenceBucket,
		StateBucket: c.StateBucket, LockBucket: c.LockBucket, ArtifactsBucket: c.ArtifactsBucket,
		AckWait: seconds(c.AckWait), MaxDeliver: c.MaxDeliver, Replicas: c.Replicas,
		LockTTL: seconds(c.LockTTL), NoHistory: !c.History, HistoryStream: c.HistoryStream,
		HistoryMaxAge: unbounded(seconds(c.HistoryMaxAge)), HistoryMaxBytes: unbounded(c.HistoryMaxBytes),
	}
}

// unbounded turns the config's "no bound" (0 or -1) into the Options' (-1).
func unbounded[T time.Duration | int64](v T) T {
	if v <= 0 {
		return -1
	}
	return v
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
