package console

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// auditKeep is how many of the newest audit entries the state carries.
const auditKeep = 500

// State is the whole picture the page shows, read from the store at once.
type State struct {
	Now       time.Time        `json:"now"`
	Store     string           `json:"store"`
	CanAct    bool             `json:"can_act"`
	Agents    []AgentRow       `json:"agents"`
	Roles     []view.RoleCount `json:"roles"`
	Threads   []ThreadRow      `json:"threads"`
	Tasks     []*TaskNode      `json:"tasks"`
	Edges     []Edge           `json:"edges"`
	SetAside  []SetAsideRow    `json:"set_aside"`
	Pending   []PendingRow     `json:"pending"`
	Audit     []store.Event    `json:"audit"`
	Approvals []Approval       `json:"approvals"`
	// Escalations are the escalations of stuck work kept on the store.
	Escalations []store.Escalation `json:"escalations"`
	// Missing names what this store cannot show ("the audit log").
	Missing []string `json:"missing,omitempty"`
}

func (c *Console) serveState(w http.ResponseWriter, r *http.Request) {
	shared, err := c.shared(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	st := *shared // the pages share it: CanAct is this page's own
	st.CanAct = c.hasToken(r)
	writeJSON(w, http.StatusOK, &st)
}

// State reads the store and builds the picture.
func (c *Console) State(ctx context.Context) (*State, error) {
	now := c.cfg.Now()
	st := &State{Now: now, Store: c.cfg.Where}
	all, err := c.browse(ctx, st)
	if err != nil {
		return nil, err
	}
	pending := view.PendingOf(all, view.PendingFilter{Now: now, ReplyTimeout: c.cfg.ReplyTimeout})
	if st.Agents, err = c.agents(ctx, all, now); err != nil {
		return nil, err
	}
	st.Roles = view.RoleSummary(c.viewAgents(st.Agents))
	st.Pending = pendingRows(pending)
	st.Threads = threads(all, pending)
	st.Tasks = taskTrees(all, now)
	st.Edges = edges(all, now)
	st.SetAside = c.setAside(ctx, st)
	st.Audit = c.audit(ctx, st)
	if st.Approvals, err = c.cfg.Approvals.Waiting(ctx); err != nil {
		st.Missing = append(st.Missing, "approvals ("+err.Error()+")")
	}
	if st.Escalations, err = c.op.Escalations(ctx); err != nil {
		st.Missing = append(st.Missing, "escalations ("+err.Error()+")")
		st.Escalations = []store.Escalation{}
	}
	return st, nil
}

// browse returns every stored message, one copy of each, read
// incrementally (see messages).
func (c *Console) browse(ctx context.Context, st *State) ([]store.Stored, error) {
	if !c.cfg.Store.Has(store.CanBrowse) {
		st.Missing = append(st.Missing, "stored messages (conversations, tasks, pending replies)")
		return nil, nil
	}
	all, err := c.msgs.read(ctx, c.cfg.Store)
	if errors.Is(err, store.ErrTurnedOff) {
		st.Missing = append(st.Missing, "stored messages: "+err.Error())
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return view.DedupStored(all), nil
}

// audit returns the newest auditKeep entries of the audit log, oldest
// first.
func (c *Console) audit(ctx context.Context, st *State) []store.Event {
	if !c.cfg.Store.Has(store.CanReadAudit) {
		st.Missing = append(st.Missing, "the audit log")
		return nil
	}
	ring := make([]store.Event, 0, auditKeep)
	start := 0
	err := c.cfg.Store.ReadAudit(ctx, func(ev store.Event) bool {
		if len(ring) < auditKeep {
			ring = append(ring, ev)
		} else {
			ring[start] = ev
			start = (start + 1) % auditKeep
		}
		return true
	})
	if err != nil {
		st.Missing = append(st.Missing, "the audit log: "+err.Error())
	}
	return append(ring[start:], ring[:start]...)
}
