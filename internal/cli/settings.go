package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
)

// settings is what the mailbox commands need from the config file and the
// global flags.
type settings struct {
	// config is the whole configuration.
	config *config.Config
	// mailbox is the channels.mailbox section over DefaultConfig (agentId
	// may be empty), with MailboxesRoot resolved: --root, else the
	// section's mailboxesRoot, "~" expanded.
	mailbox mailbox.Config
	// fromFile reports whether the file has a channels.mailbox section.
	fromFile bool
	// perSenderSet reports whether the config (file or environment) sets
	// channels.mailbox.limits.perSender itself.
	perSenderSet bool
}

// placeholderAgent stands in for an empty agentId when the mailbox section
// is validated for its other settings.
const placeholderAgent = "switchboard"

// settings loads the configuration once: --config (which must exist when
// named), else ~/.nanobot/config.json if present, with NANOBOT_ variables
// on top.
func (a *app) settings() (*settings, error) {
	if a.loaded != nil {
		return a.loaded, nil
	}
	s, err := a.loadSettings()
	if err != nil {
		return nil, err
	}
	a.loaded = s
	return s, nil
}

// loadSettings is settings without the cache.
func (a *app) loadSettings() (*settings, error) {
	if a.conf != "" {
		path, err := config.ExpandHome(a.conf)
		if err != nil {
			return nil, usagef("--config: %v", err)
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("--config %s: no such file", a.conf)
		}
		a.conf = path
	}
	// Lenient: only run uses the agent and provider settings, and the host
	// refuses their problems (see config.LoadOptions.Lenient).
	cfg, err := config.Load(config.LoadOptions{Path: a.conf, Environ: a.env.Environ, Lenient: []string{"agents", "providers"}})
	if err != nil {
		return nil, err
	}
	s := &settings{config: cfg, mailbox: mailbox.DefaultConfig()}
	if sec, ok := cfg.Section(mailbox.ChannelName); ok {
		s.fromFile = true
		if lim, ok := sec.Raw["limits"].(map[string]any); ok {
			_, s.perSenderSet = lim["perSender"]
		}
		if s.mailbox, err = mailbox.DecodeSection(sec); err != nil {
			return nil, err
		}
		check := s.mailbox
		if check.AgentID == "" {
			check.AgentID = placeholderAgent
		}
		if err := check.Validate(sec.Path); err != nil {
			return nil, err
		}
	}
	if a.root != "" {
		s.mailbox.MailboxesRoot = a.root
	}
	root, err := config.ExpandHome(s.mailbox.MailboxesRoot)
	if err == nil {
		root, err = filepath.Abs(root) // messages name it whole
	}
	if err != nil {
		return nil, fmt.Errorf("mailbox root: %w", err)
	}
	s.mailbox.MailboxesRoot = root
	return s, nil
}

// openStore opens the filesystem store at the mailbox root (whatever
// channels.mailbox.backend says: see openMailbox and fsOnly).
func (a *app) openStore() (*fsstore.Store, *settings, error) {
	s, err := a.settings()
	if err != nil {
		return nil, nil, err
	}
	st, err := fsstore.Open(fsstore.Options{
		Root:            s.mailbox.MailboxesRoot,
		MaxMessageBytes: s.mailbox.MaxMessageBytes,
		NoSync:          !s.mailbox.Fsync,
		PollInterval:    seconds(s.mailbox.PollInterval),
		Logger:          a.logger(slog.LevelWarn),
		AuditLog:        s.mailbox.AuditLog,
		AuditMaxBytes:   s.mailbox.AuditMaxBytes,
		AuditKeep:       fsstore.AuditKeep(s.mailbox.AuditKeep),
	})
	if err != nil {
		return nil, nil, err
	}
	return st, s, nil
}

// openExistingStore opens the store for a command that only reads: a
// missing root holds nothing and is not created, so st is nil then.
func (a *app) openExistingStore() (st *fsstore.Store, s *settings, err error) {
	if s, err = a.settings(); err != nil {
		return nil, nil, err
	}
	if _, err := os.Lstat(s.mailbox.MailboxesRoot); errors.Is(err, fs.ErrNotExist) {
		return nil, s, nil
	}
	return a.openStore()
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
