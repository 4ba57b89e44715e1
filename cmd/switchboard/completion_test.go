package main_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// complete asks the binary for completions the way the shell scripts do
// (cobra's __complete) and returns the candidates and the directive line.
func (s *sandbox) complete(args ...string) ([]string, string) {
	s.t.Helper()
	out := strings.Split(strings.TrimSuffix(s.ok(append([]string{"__complete"}, args...)...), "\n"), "\n")
	require.NotEmpty(s.t, out)
	return out[:len(out)-1], out[len(out)-1]
}

// noFiles is the directive "do not complete file names".
const noFiles = ":4"

func TestCompletionCandidates(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	s.sendID("--from", "coder", "--to", "newcomer", "--text", "welcome") // a folder, no card

	agents := []string{"coder\t负责代码编写和修改的 agent", "newcomer", "researcher\t负责信息检索和分析的 agent"}
	for _, args := range [][]string{{"inbox", ""}, {"recv", ""}, {"watch", ""}, {"send", "--from", ""}} {
		got, directive := s.complete(args...)
		assert.Equal(t, agents, got, "%v", args)
		assert.Equal(t, noFiles, directive, "%v", args)
	}
	for _, args := range [][]string{{"send", "--to", ""}, {"send", "--from", "x", "--to", ""}} {
		got, directive := s.complete(args...)
		assert.Equal(t, agents, got[:len(agents)], "%v: the agents first", args)
		assert.Contains(t, got, "all\tevery registered agent but the sender")
		assert.Contains(t, got, "cap:code_write\tevery holder of capability code_write")
		assert.Contains(t, got, "any:web_search\tthe least loaded online holder of web_search")
		assert.Equal(t, noFiles, directive, "%v", args)
	}
	got, _ := s.complete("inbox", "coder", "")
	assert.Empty(t, got, "one AGENT only")

	got, _ = s.complete("send", "--type", "")
	assert.Equal(t, []string{"message\ta plain message", "task\ta task for the receiver to accept and work on",
		"task_update\tnews of a task: accepted, completed, ..."}, got)
	got, _ = s.complete("send", "--task-state", "")
	assert.Equal(t, []string{"pending", "accepted", "working", "completed", "failed", "rejected", "canceled"}, got)
	got, _ = s.complete("se")
	assert.Equal(t, []string{"send\tDeliver a message to an agent's inbox and print its id"}, got)
	_, directive := s.complete("send", "--file", "")
	assert.Equal(t, ":0", directive, "--file completes file names")
	got, directive = s.complete("agents", "")
	assert.Equal(t, []string{"trust\tPin the key an agent's card names now (accept a key rotation)"}, got)
	assert.Equal(t, noFiles, directive)

	empty := newSandbox(t)
	got, _ = empty.complete("inbox", "")
	assert.Empty(t, got, "an empty tree has no agents to offer")
}

// TestCompletionBash loads the generated bash script into a real bash and
// completes through it, as a terminal would on Tab.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	s := newSandbox(t)
	s.writeFixtures()
	script := s.ok("completion", "bash")

	// The script uses _get_comp_words_by_ref of the bash-completion
	// package, and compopt, which works only while bash itself runs a
	// completion: minimal stand-ins replace them.
	const shim = `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
compopt() { :; }`
	tab := func(words ...string) []string {
		t.Helper()
		line := strings.Join(words, " ")
		prog := shim + "\n" + script + `
COMP_WORDS=(` + line + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
__start_switchboard
printf '%s\n' "${COMPREPLY[@]}"
`
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", prog)
		cmd.Env = s.env()
		var errOut strings.Builder
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		require.NoError(t, err, "%s", errOut.String())
		require.Empty(t, errOut.String())
		return strings.Fields(string(out))
	}
	assert.Equal(t, []string{"send"}, tab(bin, "se"))
	assert.Equal(t, []string{"coder"}, tab(bin, "--root", s.root, "inbox", "co"))
	assert.ElementsMatch(t, []string{"task", "task_update"}, tab(bin, "--root", s.root, "send", "--type", "ta"))
	assert.ElementsMatch(t, []string{"coder", "researcher"}, tab(bin, "--root", s.root, "recv", "''"))
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		assert.Contains(t, s.ok("completion", shell), "__complete", shell)
	}
	assertOneLineError(t, s.run("completion", "tcsh"), 2, `unknown shell "tcsh": want bash, zsh, fish or powershell; run 'switchboard help completion'`)
	assertOneLineError(t, s.run("completion"), 2, "missing argument SHELL")
}
