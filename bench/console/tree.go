package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// agents are the agents of the tree; the first one receives what the run
// delivers.
var agents = []string{"coder", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}

// buildTree writes n handled messages under root, in conversations of a
// request, its reply (every seventh stays unanswered), a task, its
// update (every fifth task stays open) and a note, and registers the
// agents.
func buildTree(ctx context.Context, root string, n int) error {
	base := time.Now().Add(-time.Duration(n) * time.Second)
	seq := 0
	write := func(at string, m *envelope.Message) error {
		data, err := envelope.EncodeCompact(m)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("%d_%s_%08x.msg.json", m.Timestamp.UnixMilli(), m.From, seq)
		return os.WriteFile(filepath.Join(root, at, "processed", name), data, 0o600)
	}
	next := func(from, to string, typ envelope.Type) *envelope.Message {
		seq++
		return &envelope.Message{ID: envelope.NewID(), From: from, To: to, Type: typ, TTL: 3,
			Trace: []string{from}, Timestamp: envelope.NewTime(base.Add(time.Duration(seq) * time.Second)),
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(strings.Repeat("lorem ipsum ", 20))}}}
	}
	for _, agent := range agents {
		for _, box := range []string{"inbox", "processed"} {
			if err := os.MkdirAll(filepath.Join(root, agent, box), 0o700); err != nil {
				return err
			}
		}
	}
	for g := 0; seq < n; g++ {
		a, b := agents[1+g%9], agents[1+(g/9+g+1)%9]
		if a == b {
			b = agents[0]
		}
		req := next(a, b, envelope.TypeMessage)
		req.ExpectsReply, req.ThreadID, req.Subject = true, req.ID, fmt.Sprintf("question %d", g)
		msgs := []struct {
			at string
			m  *envelope.Message
		}{{b, req}}
		if g%7 != 0 {
			rep := next(b, a, envelope.TypeMessage)
			rep.ReplyTo, rep.ThreadID = req.ID, req.ID
			msgs = append(msgs, struct {
				at string
				m  *envelope.Message
			}{a, rep})
		}
		task := next(a, b, envelope.TypeTask)
		task.ThreadID = req.ID
		task.Task = &envelope.Task{ID: fmt.Sprintf("t%d", g), State: envelope.StatePending}
		msgs = append(msgs, struct {
			at string
			m  *envelope.Message
		}{b, task})
		if g%5 != 0 {
			upd := next(b, a, envelope.TypeTaskUpdate)
			upd.ThreadID, upd.ReplyTo = req.ID, task.ID
			upd.Task = &envelope.Task{ID: task.Task.ID, State: envelope.StateCompleted}
			msgs = append(msgs, struct {
				at string
				m  *envelope.Message
			}{a, upd})
		}
		for _, w := range msgs {
			if err := write(w.at, w.m); err != nil {
				return err
			}
		}
	}
	return writeCards(ctx, root)
}

// writeCards registers every agent of the tree, as a running agent does.
func writeCards(ctx context.Context, root string) error {
	st, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	now := envelope.NewTime(time.Now())
	for _, agent := range agents {
		_, err := st.UpdateCard(ctx, agent, func(c *envelope.Card) {
			c.Description, c.Capabilities, c.Status = "bench agent "+agent, []string{"code"}, envelope.StatusIdle
			c.AllowFrom, c.MaxConcurrentTasks = []string{"*"}, 3
			c.RegisteredAt, c.LastHeartbeat = now, now
		})
		if err != nil {
			return fmt.Errorf("card of %s: %w", agent, err)
		}
	}
	return nil
}
