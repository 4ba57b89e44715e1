package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// sendFlags are the flags of send.
type sendFlags struct {
	from, to, kind          string
	text, data, file        string
	replyTo                 string
	ttl                     int
	taskID, taskState       string
	deadline                string
	budgetTokens            int64
	budgetCost              float64
	cbChannel, cbChat, cbSK string
	conv                    convFlags
	// newAgent allows a recipient that has neither a card nor an inbox.
	newAgent bool
}

func (a *app) sendCommand() *cobra.Command {
	var f sendFlags
	cmd := &cobra.Command{
		Use:   "send --from A --to B [--text S] [--data JSON] [--file PATH] [flags]",
		Short: "Deliver a message to an agent's inbox and print its id",
		Long: `Send delivers one message from agent A to agent B's inbox, as A would send
it, and prints the new message's id. Nothing is written when a flag is bad.

A message or a task needs content: --text, --data (a JSON object) and/or
--file (a path, which must exist; it is sent as an absolute path).

--to B is an agent id, or names several agents, each of which gets its own
copy (one id printed per line, all in one thread): all (every registered
agent but A), cap:NAME or role:NAME (every holder), any:NAME (the least
loaded online holder), a pattern such as coder-* (matching registered
agents), or a bare NAME that is no registered agent but a capability or
role. A bare name that is neither waits in that agent's inbox. A group
that names nobody is an error, and so is one larger than
channels.mailbox.maxFanout.

The message is a new send from A: trace [A], ttl one less than the hop
budget (--ttl, else channels.mailbox.defaultTtl). With --reply-to naming a
message A received from B, it is a reply instead: it keeps that message's
trace and joins its thread; naming another message, it joins its thread.

The message goes into the configured store (channels.mailbox.backend: the
mailbox folder, or NATS with the channels.mailbox.nats settings); --root
names a mailbox folder instead.

The message is signed with A's key when it can be read here (A's state on
the mailbox folder, channels.mailbox.keyFile when the config's agentId is
A, the key of NATS credentials that are A's, or ~/.nanobot/keys/A.nk): a
user who can read an agent's key can send as that agent. Otherwise it goes
unsigned, and send says so on stderr: receivers that pinned A's key refuse
it (see docs/security.md).`,
		Example: `  switchboard send --from researcher --to coder --text "hi"
  switchboard send --from lead --to cap:review --text "please look at #12" --expects-reply --subject code-review
  switchboard send --from lead --to 'coder-*' --text "standup in 5" --priority 2
  switchboard send --from researcher --to coder --type task --text "write a sort" --deadline 10m
  switchboard send --from researcher --to any:sorting --type task --text "sort 3 1 2" --budget-tokens 20000
  switchboard send --from coder --to researcher --type task_update --task-id T --task-state completed --text done`,
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.send(cmd, f)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "sending agent id (required)")
	fl.StringVar(&f.to, "to", "", "recipient (required): an agent id, all, cap:NAME, role:NAME, any:NAME or a pattern such as coder-*")
	fl.StringVar(&f.kind, "type", "message", "message type: message, task or task_update")
	fl.StringVar(&f.text, "text", "", "text part")
	fl.StringVar(&f.data, "data", "", "data part: a JSON object")
	fl.StringVar(&f.file, "file", "", "file part: the path of an existing file")
	fl.StringVar(&f.replyTo, "reply-to", "", "id of the message this one answers")
	fl.IntVar(&f.ttl, "ttl", 0, "hop budget, like channels.mailbox.defaultTtl (default: that setting, 3); the message is written with ttl N-1 and trace [FROM], as if FROM sent it")
	fl.StringVar(&f.taskID, "task-id", "", "task id (task: default a fresh one; task_update: required)")
	fl.StringVar(&f.taskState, "task-state", "", "task state: pending, accepted, working, completed, failed, rejected or canceled (default pending for a task, completed for a task_update)")
	fl.StringVar(&f.deadline, "deadline", "", "task deadline: an RFC 3339 time, or a duration from now such as 10m")
	fl.Int64Var(&f.budgetTokens, "budget-tokens", 0, "task only: tokens the task and its sub-tasks may spend on models (see docs/guardrails.md)")
	fl.Float64Var(&f.budgetCost, "budget-cost", 0, "task only: cost the task and its sub-tasks may spend, at the workers' configured prices")
	fl.StringVar(&f.cbChannel, "callback-channel", "", "task only: channel the task began in (results are routed there)")
	fl.StringVar(&f.cbChat, "callback-chat-id", "", "task only: chat id the task began in")
	fl.StringVar(&f.cbSK, "callback-session", "", "task only: session key the task began in")
	fl.BoolVar(&f.newAgent, "new", false, "allow a recipient that has no card and no inbox yet (an agent that has not started): its message waits for it")
	f.conv.add(fl)
	a.completeSendFlags(cmd)
	return cmd
}

func (a *app) send(cmd *cobra.Command, f sendFlags) error {
	now := time.Now()
	req, err := f.request(now, cmd.Flags().Changed("ttl"))
	if err != nil {
		return err
	}
	if err := f.conv.apply(&req, now); err != nil {
		return err
	}
	if !f.newAgent {
		if err := a.rootExists(); err != nil {
			return err
		}
	}
	m, s, err := a.openMailbox(false)
	if err != nil {
		return err
	}
	defer m.close()
	msgs, replies, err := a.composeAll(cmd.Context(), m, s, f.from, f.to, req, now)
	if err != nil {
		return err
	}
	unsigned, err := a.signAs(cmd.Context(), m, s, msgs)
	if err != nil {
		return err
	}
	if !f.newAgent && len(msgs) == 1 {
		if err := knownRecipient(cmd.Context(), m, msgs[0].To); err != nil {
			return err
		}
	}
	stopTracing, err := a.startTracing(cmd.Context(), s.config.Observability.Tracing, f.from, a.logger(slog.LevelWarn))
	if err != nil {
		return err
	}
	defer stopTracing()
	ctx := a.callerTrace(cmd.Context())
	// Several recipients get their copies together; the ids of all those
	// delivered are printed in recipient order, and the first failure
	// (which stops the deliveries not started yet) is the error.
	limited, err := sendLimits(ctx, m.be, s.mailbox.Limits, f.from, msgs, replies, now)
	if err != nil {
		return err
	}
	errs := route.Each(ctx, len(msgs), route.FanoutParallel, func(ctx context.Context, i int) error {
		if limited[i] != nil {
			return limited[i] // over a rate limit: not sent
		}
		return mailtrace.Deliver(ctx, nil, m.be, msgs[i])
	})
	var failed error
	for i, msg := range msgs {
		if errs[i] != nil {
			failed = cmp.Or(failed, errs[i])
			continue
		}
		if _, err := fmt.Fprintln(a.env.Stdout, msg.ID); err != nil {
			return err
		}
	}
	if failed == nil && unsigned != "" {
		fmt.Fprint(a.env.Stderr, unsigned)
	}
	return failed
}

// request checks the flags and turns them into a mailbox request. Every
// error is a usage error.
func (f sendFlags) request(now time.Time, ttlSet bool) (route.Request, error) {
	var req route.Request
	for _, id := range []struct{ flag, value string }{{"from", f.from}, {"to", f.to}} {
		if id.value == "" {
			return req, usagef("--%s is required", id.flag)
		}
	}
	if err := envelope.ValidateAgentID(f.from); err != nil {
		return req, usagef("--from: %v", err)
	}
	if _, err := route.ParseTarget(f.to); err != nil {
		return req, usagef("--to: %v", err)
	}
	kind := envelope.Type(f.kind)
	if !kind.Valid() {
		return req, usagef("--type %q: want message, task or task_update", f.kind)
	}
	state := envelope.TaskState(f.taskState)
	if f.taskState != "" && !state.Valid() {
		return req, usagef("--task-state %q: want pending, accepted, working, completed, failed, rejected or canceled", f.taskState)
	}
	if err := f.checkKind(kind); err != nil {
		return req, err
	}
	if ttlSet && f.ttl < 1 {
		return req, usagef("--ttl %d: want 1 or more", f.ttl)
	}
	req = route.Request{To: f.to, Type: kind, Text: f.text, ReplyTo: f.replyTo,
		TTL: f.ttl, TaskID: f.taskID, TaskState: state}
	if f.data != "" {
		var data map[string]any
		if err := json.Unmarshal([]byte(f.data), &data); err != nil || data == nil {
			return req, usagef("--data: want a JSON object, got %s", clip(f.data, 40))
		}
		req.Parts = append(req.Parts, envelope.DataPart(data))
	}
	if f.file != "" {
		path, err := existingFile(f.file)
		if err != nil {
			return req, err
		}
		req.Parts = append(req.Parts, envelope.FilePart(path))
	}
	if kind != envelope.TypeTaskUpdate && f.text == "" && len(req.Parts) == 0 {
		return req, usagef("a %s needs content: give --text, --data or --file", kind)
	}
	if f.deadline != "" {
		d, err := parseDeadline(f.deadline, now)
		if err != nil {
			return req, usagef("--deadline: %v", err)
		}
		req.Deadline = d
	}
	if f.cbChannel != "" {
		req.Callback = &envelope.Callback{Channel: f.cbChannel, ChatID: f.cbChat, SessionID: f.cbSK}
	}
	if f.budgetTokens != 0 || f.budgetCost != 0 {
		req.Budget = &envelope.Budget{Tokens: f.budgetTokens, Cost: f.budgetCost}
	}
	return req, nil
}

// checkKind refuses flags that do not fit the message type.
func (f sendFlags) checkKind(kind envelope.Type) error {
	callback := f.cbChannel != "" || f.cbChat != "" || f.cbSK != ""
	switch {
	case kind == envelope.TypeMessage && (f.taskID != "" || f.taskState != "" || f.deadline != ""):
		return usagef("--task-id, --task-state and --deadline need --type task or task_update")
	case kind == envelope.TypeTaskUpdate && f.taskID == "":
		return usagef("--type task_update needs --task-id (the id of the task it updates)")
	case kind == envelope.TypeTaskUpdate && f.deadline != "":
		return usagef("--deadline needs --type task")
	case callback && kind != envelope.TypeTask:
		return usagef("--callback-channel, --callback-chat-id and --callback-session need --type task")
	case (f.budgetTokens != 0 || f.budgetCost != 0) && kind != envelope.TypeTask:
		return usagef("--budget-tokens and --budget-cost need --type task")
	case f.budgetTokens < 0 || f.budgetCost < 0 || math.IsNaN(f.budgetCost) || math.IsInf(f.budgetCost, 0):
		return usagef("--budget-tokens and --budget-cost: want a positive number (0: no bound)")
	case callback && f.cbChannel == "":
		return usagef("--callback-chat-id and --callback-session need --callback-channel")
	}
	return nil
}

// existingFile returns path made absolute (the receiver runs elsewhere),
// or a usage error when no file is there.
func existingFile(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", usagef("--file %s: %v", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", usagef("--file %s: no such file", path)
	case err != nil:
		return "", usagef("--file %s: %v", path, err)
	case fi.IsDir():
		return "", usagef("--file %s: is a folder, not a file", path)
	}
	return abs, nil
}

// parseDeadline reads an RFC 3339 time, or a positive duration from now.
func parseDeadline(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("duration %s: want more than 0", s)
		}
		return now.Add(d), nil
	}
	if t, err := envelope.ParseTime(s); err == nil {
		return t.Time, nil
	}
	return time.Time{}, fmt.Errorf("want an RFC 3339 time (2026-04-26T11:00:00Z) or a duration from now (10m), got %q", s)
}

// sendLimits applies the send rate limits of channels.mailbox.limits
// (perEdge, perAgent) to msgs, the new messages and tasks of agent from,
// with the buckets kept in the store between invocations
// (limits.Sends): for each message, nil or the error that refuses it. A
// reply or a task_update is not counted (docs/guardrails.md).
func sendLimits(ctx context.Context, st *store.Store, cfg limits.Config, from string, msgs []*envelope.Message, replies []bool, now time.Time) ([]error, error) {
	out := make([]error, len(msgs))
	var to []string
	var at []int
	for i, msg := range msgs {
		if limits.Counted(msg.Type) && !replies[i] {
			to, at = append(to, msg.To), append(at, i)
		}
	}
	refused, err := limits.Sends(ctx, cfg, st, from, to, now)
	if err != nil {
		return nil, err
	}
	for k, err := range refused {
		out[at[k]] = err
	}
	return out, nil
}
