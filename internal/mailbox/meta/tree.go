package meta

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// A task tree is a task and the subtasks delegated while working on it,
// and theirs. Each task carries its place in the tree (envelope's
// task_path): one entry per task from the root down to itself,
// "delegator>worker:work", where work is WorkFingerprint of the task's
// text. The receiver refuses a task (CheckTaskPath) that brings work back
// to an agent that already had the same work in the tree (as delegator or
// worker): a cycle of any length, A → B → C → A; and one deeper than
// channels.mailbox.limits.maxTaskDepth, which stops a tree that grows
// with new work at every level. The trace rule (route.IsLoop) knows only
// the agents of one chain of messages; a task path also survives the turn
// in which a delegator reads a subtask's result and delegates more (Tree,
// carried in Meta.Tree by an update routed back to the conversation a
// task was delegated from).
//
// This file is the whole task tree: the Tree a task is delegated in and
// how work joins it (TreeOf, TreeAt), the task_path of a new task
// (Tree.TaskPath), and the receiver's rule (CheckTaskPath,
// IsCycleRefusal). Package route composes the path into each task it
// sends; the channel keeps the tree of each task it delegated
// (channels/mailbox/internal/ledger's Record), checks each task it
// receives, and fails a task whose subtask was refused as a cycle.

// CyclePrefix starts the reason of a task refused by CheckTaskPath.
const CyclePrefix = "cycle: "

// Tree is the task an agent works on and that task's task_path: a task it
// delegates meanwhile becomes a subtask, one level deeper.
type Tree struct {
	Task string   `json:"task,omitempty"`
	Path []string `json:"path,omitempty"`
}

// TreeAt returns the tree of task at place path in its own tree, nil
// when both are empty (work that began a tree of its own).
func TreeAt(task string, path []string) *Tree {
	if task == "" && len(path) == 0 {
		return nil
	}
	return &Tree{Task: task, Path: path}
}

// TreeOf returns the task tree work sent now joins: tree when it is set
// (the routed conversation of a delegated task), else the tree of parent,
// the message being handled (nil: none): the routed Tree, or the task
// itself when the message is a task; nil for anything else (new work then
// starts a tree of its own).
func TreeOf(tree *Tree, parent *Meta) *Tree {
	if tree != nil {
		return tree
	}
	if parent == nil {
		return nil
	}
	if parent.Tree != nil {
		t := *parent.Tree
		return &t
	}
	if parent.IsTask() && parent.Task != nil {
		return &Tree{Task: parent.Task.ID, Path: parent.TaskPath}
	}
	return nil
}

// WorkFingerprint identifies a task's work by its text, ignoring case and
// spacing: 16 hex digits.
func WorkFingerprint(text string) string {
	norm := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:8])
}

// TaskPath returns the task_path of a task from → to with text,
// delegated in tree t (nil: a new tree).
func (t *Tree) TaskPath(from, to, text string) []string {
	var base []string
	if t != nil {
		base = t.Path
	}
	return append(slices.Clone(base), from+">"+to+":"+WorkFingerprint(text))
}

// pathEntry is one parsed task_path entry.
type pathEntry struct{ from, to, work string }

func parseEntry(e string) (pathEntry, bool) {
	agents, work, ok := strings.Cut(e, ":")
	from, to, ok2 := strings.Cut(agents, ">")
	return pathEntry{from, to, work}, ok && ok2 && from != "" && to != "" && work != ""
}

// CheckTaskPath returns why agent self refuses task m ("" to accept it):
// its task tree is deeper than maxDepth, or m brings work back to self
// that self already had in the tree. Malformed entries (a peer's) are
// skipped. The reason starts with CyclePrefix and shows the chain.
func CheckTaskPath(self string, m *envelope.Message, maxDepth int) string {
	if m.Type != envelope.TypeTask || len(m.TaskPath) == 0 {
		return ""
	}
	var chain []pathEntry
	for _, e := range m.TaskPath {
		if pe, ok := parseEntry(e); ok {
			chain = append(chain, pe)
		}
	}
	if len(chain) == 0 {
		return ""
	}
	show := chainText(chain, self)
	if maxDepth > 0 && len(m.TaskPath) > maxDepth {
		return fmt.Sprintf("%stask tree %d deep, over the limit of %d (channels.mailbox.limits.maxTaskDepth): %s",
			CyclePrefix, len(m.TaskPath), maxDepth, show)
	}
	work := WorkFingerprint(m.Text())
	for _, pe := range chain[:len(chain)-1] {
		if pe.work == work && (pe.from == self || pe.to == self) {
			return fmt.Sprintf("%sthe same work came back to %s in one task tree: %s", CyclePrefix, self, show)
		}
	}
	return ""
}

// chainText shows the agents of a task tree's chain: "a → b → c → a".
// A task_path comes from a peer and may be long: the chain is shown as
// ChainText shows it, so that a refusal's reason (which travels to the
// delegator and the user's chat) stays one readable line.
func chainText(chain []pathEntry, self string) string {
	agents := []string{chain[0].from}
	for _, pe := range chain {
		if agents[len(agents)-1] != pe.from {
			agents = append(agents, pe.from)
		}
		agents = append(agents, pe.to)
	}
	if agents[len(agents)-1] != self {
		agents = append(agents, self)
	}
	return ChainText(agents, " → ")
}

// ChainText shows a chain of agents that came from a peer (a task tree's,
// a trace) on one line, joined by sep: at most chainHead agents from the
// start and chainTail at the end, with how many it leaves out, and each
// name clipped to chainName bytes. It does not change agents.
func ChainText(agents []string, sep string) string {
	shown := agents
	if n := len(agents); n > chainHead+chainTail+1 {
		cut := fmt.Sprintf("… %d more …", n-chainHead-chainTail)
		shown = append(append(agents[:chainHead:chainHead], cut), agents[n-chainTail:]...)
	}
	names := make([]string, len(shown))
	for i, a := range shown {
		names[i] = clipName(a)
	}
	return strings.Join(names, sep)
}

// Bounds of ChainText.
const (
	chainHead = 4
	chainTail = 5
	chainName = 64
)

// clipName cuts a name longer than chainName bytes (at a rune boundary)
// and marks the cut.
func clipName(s string) string {
	if len(s) <= chainName {
		return s
	}
	cut := chainName
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// IsCycleRefusal reports whether reason, a task's rejection or failure,
// says its tree went round in a cycle or too deep, or its route looped:
// the tree is broken, and the task it was delegated for fails with it.
func IsCycleRefusal(reason string) bool {
	return strings.HasPrefix(reason, CyclePrefix) || strings.HasPrefix(reason, "loop: ")
}
