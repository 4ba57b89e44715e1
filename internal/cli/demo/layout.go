package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// The demo's agents.
const (
	demoResearcher = "researcher"
	demoCoder      = "coder"
)

var demoCoderCapabilities = []string{"sorting", "counting", "arithmetic"}

// demoLayout is the demo's folder:
//
//	home/                        the agents' HOME
//	mailboxes/                   the shared mailbox root (backend fs)
//	nats/                        the demo's nats-server's JetStream store (backend nats)
//	researcher.json, coder.json  the configs
//	researcher.log, coder.log    what each process logged
//	researcher/workspace/        session histories
//	researcher/feishu-outbox.jsonl   what the Feishu user was sent
//	coder/workspace/
type demoLayout struct {
	dir, home, root, outbox string
}

func newDemoLayout(dir string) demoLayout {
	return demoLayout{dir: dir, home: filepath.Join(dir, "home"), root: filepath.Join(dir, "mailboxes"),
		outbox: filepath.Join(dir, demoResearcher, "feishu-outbox.jsonl")}
}

func (l demoLayout) config(agent string) string { return filepath.Join(l.dir, agent+".json") }
func (l demoLayout) log(agent string) string    { return filepath.Join(l.dir, agent+".log") }

// configs returns the two agents' configurations, with backend (the keys
// of channels.mailbox that name the store) in each mailbox section, and,
// unless traces is "", tracing on to traces (an OTLP/HTTP endpoint) and
// metrics served on a free port of 127.0.0.1.
func (l demoLayout) configs(backend map[string]any, traces string) map[string]map[string]any {
	mb := func(keys map[string]any) map[string]any {
		maps.Copy(keys, backend)
		return keys
	}
	workspace := func(agent string) map[string]any {
		return map[string]any{"defaults": map[string]any{"provider": config.DefaultProvider,
			"workspace": filepath.Join(l.dir, agent, "workspace")}}
	}
	configs := map[string]map[string]any{
		demoResearcher: {
			"agents": workspace(demoResearcher),
			"channels": map[string]any{
				"feishu-stub": map[string]any{"enabled": true, "listen": "127.0.0.1:0", "outbox": l.outbox,
					"allowFrom": []string{"*"}},
				"mailbox": mb(map[string]any{"enabled": true, "agentId": demoResearcher,
					"description":  "talks with users on Feishu and hands work to other agents",
					"capabilities": []string{"research"}}),
			},
		},
		demoCoder: {
			"agents": workspace(demoCoder),
			"channels": map[string]any{
				"mailbox": mb(map[string]any{"enabled": true, "agentId": demoCoder,
					"description":  "sorts, counts words and does arithmetic",
					"capabilities": demoCoderCapabilities}),
			},
		},
	}
	if traces != "" { // --observe: traces to the demo's receiver, metrics on a free port
		for _, cfg := range configs {
			cfg["observability"] = map[string]any{"tracing": map[string]any{"enabled": true, "endpoint": traces},
				"metrics": map[string]any{"listen": "127.0.0.1:0"}}
		}
	}
	return configs
}

// write creates the folders and writes the configs for the backend, with
// tracing on to traces and metrics on unless traces is "".
func (l demoLayout) write(be *demoBackend, traces string) error {
	dirs := []string{l.home, filepath.Join(l.dir, demoResearcher), filepath.Join(l.dir, demoCoder)}
	if be.kind == demoFS {
		dirs = append(dirs, l.root)
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(dir, 0o700); err != nil { // whatever the umask: the mailbox refuses a loose root
			return err
		}
	}
	for agent, cfg := range l.configs(be.mailboxKeys(), traces) {
		data, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(l.config(agent), append(data, '\n'), 0o600); err != nil {
			return fmt.Errorf("write %s's config: %w", agent, err)
		}
	}
	return nil
}

// cards reads the registry of the backend.
func cards(ctx context.Context, be *demoBackend) ([]view.Agent, error) {
	st, err := be.open()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	cfg := mailbox.DefaultConfig()
	return view.ListAgents(ctx, st, time.Now(), seconds(cfg.OfflineAfter), false)
}

// onlineAgents lists the agents online in the backend's registry.
func onlineAgents(ctx context.Context, be *demoBackend) ([]string, error) {
	agents, err := cards(ctx, be)
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	var ids []string
	for _, a := range agents {
		if a.Effective != envelope.StatusOffline {
			ids = append(ids, a.AgentID)
		}
	}
	return ids, nil
}

// offlineAgents checks that every agent of names has marked itself
// offline (its card says so, not only its heartbeat) and returns them.
func offlineAgents(be *demoBackend, names []string) ([]string, error) {
	agents, err := cards(context.Background(), be)
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	var offline []string
	for _, a := range agents {
		if a.Status == envelope.StatusOffline && slices.Contains(names, a.AgentID) {
			offline = append(offline, a.AgentID)
		}
	}
	if len(offline) != len(names) {
		return nil, fmt.Errorf("after the stop, the registry shows offline only %v of %v", offline, names)
	}
	return offline, nil
}
