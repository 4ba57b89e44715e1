package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/fakellm"
	"github.com/switchboard-dev/switchboard/internal/feishustub"
)

// requests are what the user says in the Feishu chat, one after the
// other, each with the answer that ends it: the first task starts a
// conversation (every prompt cache is cold), the next ones continue it.
var requests = []struct{ text, result string }{
	{"please sort 5 3 9 1", "1 3 5 9"},
	{"please sort 8 2 7", "2 7 8"},
	{"please sort 6 4", "4 6"},
}

// waitLimit bounds one scenario.
const waitLimit = 2 * time.Minute

// scenario is one configuration of the two switchboard agents.
type scenario struct {
	name string
	// defaults are keys of agents.defaults both agents get.
	defaults map[string]any
	// target is the most model calls the scenario may make (0: none).
	target int
}

// scenarios are the configurations measured.
var scenarios = []scenario{
	{name: "switchboard, judge: llm", defaults: map[string]any{}, target: 4},
	{name: "switchboard, judge: capabilities", defaults: map[string]any{"judge": "capabilities"}, target: 3},
	// Every update through the model, as before templated notices: the
	// flow issue 29 measured (6 calls), for comparison.
	{name: "switchboard, notices: model", defaults: map[string]any{"notices": map[string]any{"mode": "model"}}},
}

// result is what one flow cost.
type result struct {
	name   string
	target int
	tasks  [][]fakellm.Call // the calls of each task, in order
	chat   []string         // what the user read
}

// runSwitchboard runs researcher and coder, each a host as `switchboard
// run` builds it, on a fresh mailbox folder and a fresh fake provider,
// and has a Feishu user ask researcher to sort; it returns once the user
// has read the result.
func runSwitchboard(ctx context.Context, sc scenario, o options) (result, error) {
	llm := fakellm.New()
	srv := httptest.NewServer(llm)
	defer srv.Close()
	dir, err := os.MkdirTemp("", "switchboard-cost-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "mailboxes")
	if err := os.Mkdir(root, 0o700); err != nil {
		return result{}, err
	}
	start := func(agent string, mailbox map[string]any, feishu bool, promptBytes int) (*host.Host, error) {
		ws := filepath.Join(dir, agent, "workspace")
		if err := os.MkdirAll(ws, 0o700); err != nil {
			return nil, err
		}
		if promptBytes > 0 {
			if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(instructions(promptBytes)), 0o600); err != nil {
				return nil, err
			}
		}
		cfg, err := hostConfig(dir, agent, root, srv.URL+"/v1", sc.defaults, mailbox, feishu)
		if err != nil {
			return nil, err
		}
		h, err := host.New(cfg, host.Options{})
		if err != nil {
			return nil, err
		}
		return h, h.Start(ctx)
	}
	coder, err := start("coder", map[string]any{"capabilities": []string{"sorting"},
		"description": "sorts, counts words and does arithmetic"}, false, 0)
	if err != nil {
		return result{}, fmt.Errorf("start coder: %w", err)
	}
	defer coder.Stop()
	researcher, err := start("researcher", map[string]any{"capabilities": []string{"research"},
		"description": "talks with users on Feishu and hands work to other agents"}, true, o.promptBytes)
	if err != nil {
		return result{}, fmt.Errorf("start researcher: %w", err)
	}
	defer researcher.Stop()

	ch, _ := researcher.Channel(feishustub.ChannelName)
	_, webhook := ch.(channels.Addresser).Address()
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	r := result{name: sc.name, target: sc.target}
	for i, req := range requests[:o.tasks] {
		id := fmt.Sprint(i + 1)
		ev := feishustub.MessageEvent("ev_"+id, "ou_user", "oc_user", "om_"+id, req.text, time.Now())
		if err := feishustub.PostEvent(ctx, webhook, ev); err != nil {
			return result{}, err
		}
		for len(r.chat) == 0 || !strings.Contains(r.chat[len(r.chat)-1], req.result) {
			replies, err := feishustub.NextReplies(ctx, webhook, "oc_user", len(r.chat), 5*time.Second)
			if err != nil {
				return result{}, fmt.Errorf("waiting for the result (chat so far %q): %w", r.chat, err)
			}
			for _, rep := range replies {
				r.chat = append(r.chat, rep.Content)
			}
		}
		// The user read the result: the task's calls are all made.
		all := llm.Calls()
		r.tasks = append(r.tasks, all[countCalls(r.tasks):])
	}
	if err := researcher.Stop(); err != nil {
		return result{}, err
	}
	if err := coder.Stop(); err != nil {
		return result{}, err
	}
	return r, nil
}

// countCalls is how many calls tasks hold.
func countCalls(tasks [][]fakellm.Call) int {
	n := 0
	for _, t := range tasks {
		n += len(t)
	}
	return n
}

// hostConfig returns agent's configuration: the fake provider (its key is
// the agent's id, so the fake knows who calls), the mailbox, and the
// Feishu stub when feishu is set.
func hostConfig(dir, agent, root, apiBase string, defaults, mailbox map[string]any, feishu bool) (*config.Config, error) {
	mb := map[string]any{"enabled": true, "agentId": agent, "mailboxesRoot": root}
	for k, v := range mailbox {
		mb[k] = v
	}
	chans := map[string]any{"mailbox": mb}
	if feishu {
		chans[feishustub.TypeName] = map[string]any{"enabled": true, "listen": "127.0.0.1:0",
			"outbox": filepath.Join(dir, agent, "outbox.jsonl")}
	}
	d := map[string]any{"workspace": filepath.Join(dir, agent, "workspace"), "provider": "custom", "model": "fake-model"}
	for k, v := range defaults {
		d[k] = v
	}
	doc := map[string]any{"channels": chans, "agents": map[string]any{"defaults": d},
		"providers": map[string]any{"custom": map[string]any{"apiKey": agent, "apiBase": apiBase}}}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, agent+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	return config.Load(config.LoadOptions{Path: path})
}

// instructions returns n bytes of standing instructions, the kind an
// AGENTS.md holds, the same on every run.
func instructions(n int) string {
	var b strings.Builder
	b.WriteString("# Instructions\n\n")
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d. Answer the user in their own words, briefly; name the agent that did the work, "+
			"and say what is still open when a task is not done yet.\n", i)
	}
	return b.String()[:n]
}
