package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// agentTasks is the SDK's task store for one fronted agent: a view of the
// gateway's tasks that sees that agent's only.
type agentTasks struct {
	t     *tasks
	agent string
}

var _ taskstore.Store = agentTasks{}

// Create implements taskstore.Store.
func (s agentTasks) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	return s.t.create(ctx, s.agent, task)
}

// Update implements taskstore.Store.
func (s agentTasks) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	return s.t.update(ctx, s.agent, req)
}

// Get implements taskstore.Store.
func (s agentTasks) Get(_ context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	r, ok := s.t.get(id)
	if !ok || r.Agent != s.agent {
		return nil, a2a.ErrTaskNotFound
	}
	return &taskstore.StoredTask{Task: r.Task, Version: taskstore.TaskVersion(r.Version)}, nil
}

// maxHistory is how many messages of a task's history List returns when
// the request does not say.
const maxHistory = 100

// List implements taskstore.Store: the agent's tasks, the most recently
// changed first, filtered as the request asks, a page at a time (the
// page token is the offset of the page, encoded).
func (s agentTasks) List(_ context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	size := req.PageSize
	switch {
	case size == 0:
		size = 50
	case size < 1 || size > 100:
		return nil, fmt.Errorf("page size must be 1 to 100, got %d: %w", size, a2a.ErrInvalidRequest)
	}
	offset := 0
	if req.PageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(req.PageToken)
		n, perr := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if err != nil || perr != nil || n < 0 {
			return nil, fmt.Errorf("page token %q: %w", req.PageToken, a2a.ErrInvalidParams)
		}
		offset = n
	}
	var found []record
	for _, r := range s.t.all(s.agent) {
		st := r.Task.Status
		switch {
		case req.ContextID != "" && r.Task.ContextID != req.ContextID:
		case req.Status != a2a.TaskStateUnspecified && st.State != req.Status:
		case req.StatusTimestampAfter != nil && st.Timestamp != nil && st.Timestamp.Before(*req.StatusTimestampAfter):
		default:
			found = append(found, r)
		}
	}
	slices.SortFunc(found, func(a, b record) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(string(b.Task.ID), string(a.Task.ID))
	})
	out := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: len(found), PageSize: size}
	if offset >= len(found) {
		return out, nil
	}
	page := found[offset:]
	if len(page) > size {
		page = page[:size]
		out.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset+size)))
	}
	history := maxHistory
	if req.HistoryLength != nil {
		history = *req.HistoryLength
	}
	for _, r := range page {
		task := r.Task
		if history >= 0 && len(task.History) > history {
			task.History = task.History[len(task.History)-history:]
		}
		if !req.IncludeArtifacts {
			task.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, task)
	}
	return out, nil
}
