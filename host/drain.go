package host

import "context"

// Drain makes the host's channels take no new work and finish the work
// they handed the agent (channels.WorkDrainer: the mailbox marks the
// agent "draining", refuses new tasks and waits for those in hand); Run
// stops the host once they are done, as on SIGTERM. A drain may also
// begin from outside (`switchboard drain AGENT`). Drain reports false when
// no channel can drain.
func (h *Host) Drain(ctx context.Context) (bool, error) {
	return h.manager.DrainWork(ctx)
}
