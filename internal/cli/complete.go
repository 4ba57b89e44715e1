package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Shell completion (switchboard completion bash|zsh|fish|powershell): the
// scripts ask the binary (cobra's hidden __complete command) for the
// candidates, so agent ids come from the mailbox tree the command line
// names with --root or --config.

// messageTypes and taskStates are the values --type and --task-state take.
var (
	messageTypes = []cobra.Completion{
		cobra.CompletionWithDesc(string(envelope.TypeMessage), "a plain message"),
		cobra.CompletionWithDesc(string(envelope.TypeTask), "a task for the receiver to accept and work on"),
		cobra.CompletionWithDesc(string(envelope.TypeTaskUpdate), "news of a task: accepted, completed, ..."),
	}
	taskStates = []cobra.Completion{
		string(envelope.StatePending), string(envelope.StateAccepted), string(envelope.StateWorking),
		string(envelope.StateCompleted), string(envelope.StateFailed), string(envelope.StateRejected),
		string(envelope.StateCanceled),
	}
)

// completeAgentArg completes a command's one AGENT argument.
func (a *app) completeAgentArg(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.knownAgents(), cobra.ShellCompDirectiveNoFileComp
}

// completeAgentFlag completes a flag whose value is an agent id.
func (a *app) completeAgentFlag(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.knownAgents(), cobra.ShellCompDirectiveNoFileComp
}

// knownAgents returns the agents of the mailbox tree, each with its
// description when its card has one: the registry's cards and the agent
// folders. It reads only, and returns nothing when the tree cannot be
// read.
func (a *app) knownAgents() []cobra.Completion {
	s, err := a.settings()
	if err != nil {
		return nil
	}
	var desc map[string]string
	if a.backendKind(s) == backendFS {
		root := s.mailbox.MailboxesRoot
		desc = registryDescriptions(filepath.Join(root, registryFile))
		dirs, _ := agentDirs(root)
		for _, id := range dirs {
			if _, ok := desc[id]; !ok {
				desc[id] = ""
			}
		}
	} else {
		desc = a.storeDescriptions()
	}
	ids := make([]string, 0, len(desc))
	for id := range desc {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]cobra.Completion, 0, len(ids))
	for _, id := range ids {
		if desc[id] == "" {
			out = append(out, id)
			continue
		}
		out = append(out, cobra.CompletionWithDesc(id, oneLine(desc[id])))
	}
	return out
}

// completeLimit bounds reading the cards of a store other than the
// filesystem one for a completion, connecting included: a server that
// does not answer completes nothing rather than hold up the shell.
const completeLimit = 3 * time.Second

// storeDescriptions returns each agent of the configured store's registry
// with its card's description; a store that cannot be read within
// completeLimit gives an empty map. It creates nothing.
func (a *app) storeDescriptions() map[string]string {
	if _, err := a.settings(); err != nil { // loaded now: the copy below only reads it
		return map[string]string{}
	}
	quiet := *a
	quiet.env.Stderr = io.Discard // the store's warnings would garble the shell's line
	ctx, cancel := context.WithTimeout(context.Background(), completeLimit)
	defer cancel()
	read := make(chan map[string]string, 1) // left behind, the reader ends within the connect timeout
	go func() { read <- quiet.readDescriptions(ctx) }()
	select {
	case out := <-read:
		return out
	case <-ctx.Done():
		return map[string]string{}
	}
}

// readDescriptions opens the configured store read-only and returns each
// card's description by agent id (empty when it cannot).
func (a *app) readDescriptions(ctx context.Context) map[string]string {
	out := map[string]string{}
	m, _, err := a.openMailbox(true)
	if err != nil || m.be == nil {
		return out
	}
	defer m.close()
	cards, _ := m.be.Cards(ctx)
	for _, c := range cards {
		out[c.AgentID] = c.Description
	}
	return out
}

// registryDescriptions reads the registry at path and returns each valid
// agent id with its card's description; an unreadable registry gives an
// empty map.
func registryDescriptions(path string) map[string]string {
	out := map[string]string{}
	for id, c := range registryCards(path) {
		out[id] = c.Description
	}
	return out
}

// completionCard is what completion uses of a card.
type completionCard struct {
	Description  string   `json:"description"`
	Capabilities []string `json:"capabilities"`
	Roles        []string `json:"roles"`
}

// registryCards reads the registry at path and returns the cards of the
// valid agent ids; an unreadable registry gives an empty map, an odd card
// a zero one.
func registryCards(path string) map[string]completionCard {
	out := map[string]completionCard{}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return out
	}
	defer f.Close()
	data, err := readCapped(f, maxRegistryBytes)
	if err != nil {
		return out
	}
	var entries map[string]json.RawMessage
	_ = json.Unmarshal(data, &entries) // a corrupt registry completes nothing from it
	for id, raw := range entries {
		if envelope.ValidateAgentID(id) != nil {
			continue
		}
		var card completionCard
		_ = json.Unmarshal(raw, &card) // an odd card still completes its id
		out[id] = card
	}
	return out
}

// completeFlag registers fn as the completion of cmd's flag name; a
// missing flag is a programming error.
func completeFlag(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
		panic(err)
	}
}

// completeSendFlags sets the completions of send's flags: agent ids, the
// message types and task states, files for --file, nothing for the rest.
func (a *app) completeSendFlags(cmd *cobra.Command) {
	completeFlag(cmd, "from", a.completeAgentFlag)
	completeFlag(cmd, "to", a.completeTarget)
	completeFlag(cmd, "type", cobra.FixedCompletions(messageTypes, cobra.ShellCompDirectiveNoFileComp))
	completeFlag(cmd, "task-state", cobra.FixedCompletions(taskStates, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"text", "data", "reply-to", "ttl", "task-id", "deadline",
		"callback-channel", "callback-chat-id", "callback-session"} {
		completeFlag(cmd, name, cobra.NoFileCompletions)
	}
}

// strictCompletion adds cobra's completion command to root, with one
// change: a missing or unknown shell is a usage error (cobra would print
// the help and exit 0).
func (a *app) strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs // the shells are its sub-commands; anything else lands here
		c.RunE = a.action(func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing argument SHELL: want bash, zsh, fish or powershell")
			}
			return usagef("unknown shell %q: want bash, zsh, fish or powershell", args[0])
		})
	}
}
