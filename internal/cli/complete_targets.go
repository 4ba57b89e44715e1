package cli

import (
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
)

// completeTarget completes send's --to: the known agents, then all, and
// cap:, any: and role: with each capability and role the cards name.
func (a *app) completeTarget(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out, _ := a.completeAgentFlag(cmd, args, toComplete)
	out = append(out, cobra.CompletionWithDesc("all", "every registered agent but the sender"))
	caps, roles := a.knownGroups()
	for _, c := range caps {
		out = append(out, cobra.CompletionWithDesc("cap:"+c, "every holder of capability "+c),
			cobra.CompletionWithDesc("any:"+c, "the least loaded online holder of "+c))
	}
	for _, r := range roles {
		out = append(out, cobra.CompletionWithDesc("role:"+r, "every agent with role "+r))
		if !slices.Contains(caps, r) {
			out = append(out, cobra.CompletionWithDesc("any:"+r, "the least loaded online agent with role "+r))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// knownGroups returns the capabilities and roles of the registry's cards,
// sorted, each once (the filesystem store's registry only: completion
// reads no other store for them).
func (a *app) knownGroups() (caps, roles []string) {
	s, err := a.settings()
	if err != nil || a.backendKind(s) != backendFS {
		return nil, nil
	}
	for _, c := range registryCards(filepath.Join(s.mailbox.MailboxesRoot, registryFile)) {
		caps = append(caps, c.Capabilities...)
		roles = append(roles, c.Roles...)
	}
	slices.Sort(caps)
	slices.Sort(roles)
	return slices.Compact(caps), slices.Compact(roles)
}
