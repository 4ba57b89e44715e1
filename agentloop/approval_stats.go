package agentloop

import (
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/agent"
)

// ApprovalCounts counts the approvals of one kind a loop asked for, and
// how each was decided.
type ApprovalCounts struct {
	// Asked counts the approvals asked for.
	Asked int64
	// Approved and Denied count those a person decided (in a chat, on the
	// command line or the console).
	Approved, Denied int64
	// TimedOut counts those no one decided in time (denied).
	TimedOut int64
	// NotAsked counts those that could not be asked (the record could
	// not be written) or were cut short by the agent's stop (denied).
	NotAsked int64
}

// ApprovalStats are a loop's approvals since it was made, by kind.
type ApprovalStats struct {
	Tool ApprovalCounts // approvals of a tool call (ApprovalTool)
	Task ApprovalCounts // approvals of a delegated task (ApprovalTask)
}

// ApprovalStats returns the loop's approval counts, for metrics (zero
// when nothing needs approval).
func (l *Loop) ApprovalStats() ApprovalStats {
	if l.gate == nil {
		return ApprovalStats{}
	}
	return ApprovalStats{Tool: l.gate.stats[0].load(), Task: l.gate.stats[1].load()}
}

// approvalCounters are the ApprovalCounts of one kind as they grow.
type approvalCounters struct {
	asked, approved, denied, timedOut, notAsked atomic.Int64
}

func (c *approvalCounters) load() ApprovalCounts {
	return ApprovalCounts{Asked: c.asked.Load(), Approved: c.approved.Load(), Denied: c.denied.Load(),
		TimedOut: c.timedOut.Load(), NotAsked: c.notAsked.Load()}
}

// counters returns the counters of approvals of kind.
func (g *gate) counters(kind string) *approvalCounters {
	if kind == ApprovalTask {
		return &g.stats[1]
	}
	return &g.stats[0]
}

// decided counts decision d of an approval of kind.
func (c *approvalCounters) decided(d agent.Decision) {
	switch {
	case d.Allow:
		c.approved.Add(1)
	case d.By == "timeout":
		c.timedOut.Add(1)
	case d.By == "stop", d.By == "error":
		c.notAsked.Add(1)
	default:
		c.denied.Add(1)
	}
}
