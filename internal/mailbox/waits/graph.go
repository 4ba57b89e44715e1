package waits

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// RecordKey is the state key of a delegator's records of the tasks it
// sent (the mailbox channel's ledger; on the folder store
// <agent>/state/sent-tasks.json).
const RecordKey = "sent-tasks"

// Wait is one edge of the graph: Agent's task Task waits on the subtask
// Subtask it delegated to On.
type Wait struct {
	Agent   string             `json:"agent"`
	Task    string             `json:"task"`
	Subtask string             `json:"subtask"`
	On      string             `json:"on"`
	State   envelope.TaskState `json:"state"`
	Since   time.Time          `json:"since"`
	Thread  string             `json:"thread,omitempty"`
}

// Cycle is a deadlock: Agents in order (each waits on the next, the last
// on the first), and for each the wait that makes it wait (the oldest
// between the two).
type Cycle struct {
	Agents []string `json:"agents"`
	Waits  []Wait   `json:"waits"`
}

// String is the cycle as "a → b → a".
func (c Cycle) String() string {
	return strings.Join(append(slices.Clone(c.Agents), c.Agents[0]), " → ")
}

// Youngest is the wait of the cycle that began last: the one to break.
func (c Cycle) Youngest() Wait {
	return slices.MaxFunc(c.Waits, func(a, b Wait) int {
		return cmp.Or(a.Since.Compare(b.Since), strings.Compare(a.Subtask, b.Subtask))
	})
}

// Graph is every open wait of the mailbox, by agent then since.
type Graph struct {
	Waits []Wait `json:"waits"`
}

// record is the part of a delegator's record the graph reads.
type record struct {
	TaskID     string             `json:"task_id"`
	To         string             `json:"to"`
	State      envelope.TaskState `json:"state"`
	SentAt     envelope.Time      `json:"sent_at"`
	ThreadID   string             `json:"thread_id"`
	ParentTask string             `json:"parent_task"`
}

// Load reads the records of every registered agent. Only the subtasks
// of tasks (those with a parent task) are waits: a task delegated from a
// chat keeps no agent from working. A record that does not decode is
// skipped and named in the returned problems.
func Load(ctx context.Context, st *store.Store) (Graph, []string, error) {
	cards, err := st.Cards(ctx)
	if err != nil {
		return Graph{}, nil, err
	}
	var g Graph
	var problems []string
	for _, c := range cards {
		data, err := st.LoadState(ctx, c.AgentID, RecordKey)
		if err != nil {
			return Graph{}, nil, fmt.Errorf("waits of %s: %w", c.AgentID, err)
		}
		if len(data) == 0 {
			continue
		}
		var list []record
		if err := json.Unmarshal(data, &list); err != nil {
			problems = append(problems, fmt.Sprintf("%s: task records unreadable: %v", c.AgentID, err))
			continue
		}
		for _, r := range list {
			if r.ParentTask == "" || r.To == "" || r.State.Terminal() {
				continue
			}
			g.Waits = append(g.Waits, Wait{Agent: c.AgentID, Task: r.ParentTask, Subtask: r.TaskID, On: r.To,
				State: r.State, Since: r.SentAt.Time, Thread: r.ThreadID})
		}
	}
	slices.SortFunc(g.Waits, func(a, b Wait) int {
		return cmp.Or(strings.Compare(a.Agent, b.Agent), a.Since.Compare(b.Since), strings.Compare(a.Subtask, b.Subtask))
	})
	return g, problems, nil
}

// Cycles returns one cycle for each group of agents that wait on each
// other (a strongly connected component of two agents or more, or an
// agent waiting on itself), those of the lowest agent id first.
func (g Graph) Cycles() []Cycle {
	edges := map[string][]string{} // agent → agents it waits on, sorted
	oldest := map[[2]string]Wait{} // the oldest wait between two agents
	for _, w := range g.Waits {
		k := [2]string{w.Agent, w.On}
		if o, ok := oldest[k]; !ok || w.Since.Before(o.Since) {
			oldest[k] = w
		}
		if !slices.Contains(edges[w.Agent], w.On) {
			edges[w.Agent] = append(edges[w.Agent], w.On)
		}
	}
	for a := range edges {
		slices.Sort(edges[a])
	}
	var out []Cycle
	for _, comp := range components(edges) {
		path := cycleIn(comp, edges)
		if path == nil {
			continue
		}
		c := Cycle{Agents: path}
		for i, a := range path {
			c.Waits = append(c.Waits, oldest[[2]string{a, path[(i+1)%len(path)]}])
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Cycle) int { return strings.Compare(a.Agents[0], b.Agents[0]) })
	return out
}

// cycleIn returns a cycle through the lowest agent of comp, walking
// edges inside comp only (nil when comp is one agent that does not wait
// on itself).
func cycleIn(comp []string, edges map[string][]string) []string {
	start := slices.Min(comp)
	in := func(a string) bool { return slices.Contains(comp, a) }
	seen := map[string]bool{}
	var walk func(a string, path []string) []string
	walk = func(a string, path []string) []string {
		for _, b := range edges[a] {
			switch {
			case b == start:
				return path
			case in(b) && !seen[b]:
				seen[b] = true
				if p := walk(b, append(path, b)); p != nil {
					return p
				}
			}
		}
		return nil
	}
	return walk(start, []string{start})
}

// components returns the strongly connected components of the graph
// (Tarjan's algorithm), each sorted, visiting agents in id order.
func components(edges map[string][]string) [][]string {
	nodes := make([]string, 0, len(edges))
	for a := range edges {
		nodes = append(nodes, a)
	}
	slices.Sort(nodes)
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(a string)
	visit = func(a string) {
		index[a], low[a] = next, next
		next++
		stack = append(stack, a)
		onStack[a] = true
		for _, b := range edges[a] {
			if _, ok := index[b]; !ok {
				visit(b)
				low[a] = min(low[a], low[b])
			} else if onStack[b] {
				low[a] = min(low[a], index[b])
			}
		}
		if low[a] != index[a] {
			return
		}
		var comp []string
		for {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[b] = false
			comp = append(comp, b)
			if b == a {
				break
			}
		}
		slices.Sort(comp)
		out = append(out, comp)
	}
	for _, a := range nodes {
		if _, ok := index[a]; !ok {
			visit(a)
		}
	}
	return out
}
