package fsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/google/uuid"
)

// approvalsDir is the folder under the root that holds the approvals
// agents wait for: <id>.json, the question, written once by the agent, and
// <id>.decision.json, the answer, created exclusively by whoever decides
// first (a link that fails if the file exists). nanobot ignores it, and no
// agent id can start with '_'.
const approvalsDir = "_approvals"

// maxApprovalBytes caps one approval record.
const maxApprovalBytes = 64 << 10

var _ agent.ApprovalBook = (*Store)(nil)

// approvalPaths returns the files of approval id, after checking id.
func (s *Store) approvalPaths(id string) (question, decision string, err error) {
	if err := agent.CheckApprovalID(id); err != nil {
		return "", "", err
	}
	dir := filepath.Join(s.root, approvalsDir)
	return filepath.Join(dir, id+".json"), filepath.Join(dir, id+".decision.json"), nil
}

// approvalDir returns the folder, created 0700 when create is set; it is
// refused if it is a symlink or open to others.
func (s *Store) approvalDir(create bool) (string, error) {
	dir := filepath.Join(s.root, approvalsDir)
	if create {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("approvals: %w", err)
		}
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	if err := checkPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// PutApproval implements store.ApprovalBook.
func (s *Store) PutApproval(_ context.Context, a agent.Approval) error {
	question, _, err := s.approvalPaths(a.ID)
	if err != nil {
		return err
	}
	if a.Decision != nil {
		return fmt.Errorf("put approval %s: a new approval has no decision", a.ID)
	}
	if _, err := s.approvalDir(true); err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if err := s.createExclusive(question, data); err != nil {
		return fmt.Errorf("put approval %s: %w", a.ID, err)
	}
	return nil
}

// createExclusive writes data to a temp file beside path and links it to
// path, which fails if path exists: of two writers, one wins whole.
func (s *Store) createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil && !s.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	if !s.opts.NoSync {
		return syncDir(dir)
	}
	return nil
}

// GetApproval implements store.ApprovalBook.
func (s *Store) GetApproval(_ context.Context, id string) (agent.Approval, error) {
	question, decision, err := s.approvalPaths(id)
	if err != nil {
		return agent.Approval{}, err
	}
	if _, err := s.approvalDir(false); errors.Is(err, fs.ErrNotExist) {
		return agent.Approval{}, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	} else if err != nil {
		return agent.Approval{}, err
	}
	return readApproval(question, decision, id)
}

// readApproval reads a question and its decision, if any.
func readApproval(question, decision, id string) (agent.Approval, error) {
	var a agent.Approval
	data, err := readRegular(question, maxApprovalBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	if err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("approval %s: %s: %w", id, question, err)
	}
	a.ID, a.Decision = id, nil
	data, err = readRegular(decision, maxApprovalBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return a, fmt.Errorf("approval %s: %w", id, err)
	default:
		var d agent.Decision
		if err := json.Unmarshal(data, &d); err != nil {
			return a, fmt.Errorf("approval %s: %s: %w", id, decision, err)
		}
		a.Decision = &d
	}
	if err := a.CheckRecord(); err != nil {
		return a, fmt.Errorf("approval %s: %s: %w", id, question, err)
	}
	return a, nil
}

// ListApprovals implements store.ApprovalBook. Records that cannot be read
// are skipped with a warning.
func (s *Store) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	dir, err := s.approvalDir(false)
	if errors.Is(err, fs.ErrNotExist) {
		return []agent.Approval{}, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	out := []agent.Approval{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") || strings.HasSuffix(id, ".decision") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		question, decision, err := s.approvalPaths(id)
		if err != nil {
			continue
		}
		a, err := readApproval(question, decision, id)
		if errors.Is(err, agent.ErrNoApproval) {
			continue // deleted meanwhile
		}
		if err != nil {
			s.opts.Logger.Warn("approval record skipped", "id", id, "err", err)
			continue
		}
		out = append(out, a)
	}
	agent.SortApprovals(out)
	return out, nil
}

// DecideApproval implements store.ApprovalBook: the decision file is
// created exclusively, so the first decider wins.
func (s *Store) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	a, err := s.GetApproval(ctx, id)
	if err != nil {
		return a, err
	}
	if err := agent.ErrIfDecided(a); err != nil {
		return a, err
	}
	_, decision, _ := s.approvalPaths(id)
	data, err := json.Marshal(d)
	if err != nil {
		return a, err
	}
	err = s.createExclusive(decision, data)
	if errors.Is(err, fs.ErrExist) {
		a, err := s.GetApproval(ctx, id)
		if err != nil {
			return a, err
		}
		if err := agent.ErrIfDecided(a); err != nil {
			return a, err
		}
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrDecided) // and removed since
	}
	if err != nil {
		return a, fmt.Errorf("decide approval %s: %w", id, err)
	}
	a.Decision = &d
	return a, nil
}

// DeleteApproval implements store.ApprovalBook: the question first, so
// that no one lists or decides an approval whose decision is gone.
func (s *Store) DeleteApproval(_ context.Context, id string) error {
	question, decision, err := s.approvalPaths(id)
	if err != nil {
		return err
	}
	for _, p := range []string{question, decision} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete approval %s: %w", id, err)
		}
	}
	return nil
}
