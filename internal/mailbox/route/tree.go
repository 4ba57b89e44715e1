package route

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// A task tree is a task and the subtasks delegated while working on it,
// and theirs. Each task carries its place in the tree (envelope's
// task_path): one entry per task from the root down to itself,
// "delegator>worker:work", where work is WorkFingerprint of the task's
// text. The receiver refuses a task (CheckTaskPath) that brings work back
// to an agent that already had the same work in the tree (as delegator or
// worker): a cycle of any length, A → B → C → A; and one deeper than
// channels.mailbox.limits.maxTaskDepth, which stops a tree that grows
// with new work at every level. The trace rule (IsLoop) knows only the
// agents of one chain of messages; a task path also survives the turn in
// which a delegator reads a subtask's result and delegates more (see
// meta.Tree).

// CyclePrefix starts the reason of a task refused by CheckTaskPath.
const CyclePrefix = "cycle: "

// TreeOf returns the task tree req's task joins: req.Tree, else the tree
// of its Parent (meta.Meta.TreeOf); nil for a new tree.
func TreeOf(req Request) *meta.Tree {
	if req.Tree != nil {
		return req.Tree
	}
	if req.Parent != nil {
		return req.Parent.TreeOf()
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

// taskPath returns the task_path of a task from → to with text, under
// tree (nil: a new tree).
func taskPath(tree *meta.Tree, from, to, text string) []string {
	var base []string
	if tree != nil {
		base = tree.Path
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
// A task_path comes from a peer and may be long: the chain shows at most
// chainHead agents from the root and chainTail before self, with how
// many it leaves out, and each name clipped to chainName bytes, so that a
// refusal's reason (which travels to the delegator and the user's chat)
// stays one readable line.
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
	if n := len(agents); n > chainHead+chainTail+1 {
		cut := fmt.Sprintf("… %d more …", n-chainHead-chainTail)
		agents = append(append(agents[:chainHead:chainHead], cut), agents[n-chainTail:]...)
	}
	for i, a := range agents {
		agents[i] = clipName(a)
	}
	return strings.Join(agents, " → ")
}

// Bounds of chainText.
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
