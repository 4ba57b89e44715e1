package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// inboxAgent is the agent whose inbox holds half the tree.
const inboxAgent = "coder"

// peers are the other agents of the tree.
var peers = []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}

// treeInfo is what the views are asked about.
type treeInfo struct {
	threadID string // a request in the middle of the handled half
	files    int
}

// message is one file to write.
type message struct {
	box string // inbox or processed, of msg.To (inbox) or msg.From's peer
	at  string // the agent whose folder holds it
	msg *envelope.Message
}

// buildTree writes n messages under root and the agents' cards.
func buildTree(ctx context.Context, root string, n int) (treeInfo, error) {
	var info treeInfo
	base := time.Now().Add(-time.Duration(n) * time.Second)
	var all []message
	seq := 0
	next := func(from, to string, typ envelope.Type) *envelope.Message {
		seq++
		return &envelope.Message{ID: envelope.NewID(), From: from, To: to, Type: typ, TTL: 3,
			Trace: []string{from}, Timestamp: envelope.NewTime(base.Add(time.Duration(seq) * time.Second)),
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(strings.Repeat("lorem ipsum ", 20))}}}
	}
	// Half the tree waits in coder's inbox: every tenth one a request.
	for i := 0; i < n/2; i++ {
		m := next(peers[i%len(peers)], inboxAgent, envelope.TypeMessage)
		m.ExpectsReply = i%10 == 0
		all = append(all, message{box: "inbox", at: inboxAgent, msg: m})
	}
	// The other half: conversations of five handled messages each.
	for g := 0; len(all) < n; g++ {
		a, b := peers[g%len(peers)], peers[(g/len(peers)+g+1)%len(peers)]
		if a == b {
			b = inboxAgent
		}
		req := next(a, b, envelope.TypeMessage)
		req.ExpectsReply, req.ThreadID, req.Subject = true, req.ID, fmt.Sprintf("question %d", g)
		all = append(all, message{box: "processed", at: b, msg: req})
		if g%7 != 0 { // every seventh request stays unanswered
			rep := next(b, a, envelope.TypeMessage)
			rep.ReplyTo, rep.ThreadID = req.ID, req.ID
			all = append(all, message{box: "processed", at: a, msg: rep})
		}
		task := next(a, b, envelope.TypeTask)
		task.ThreadID = req.ID
		task.Task = &envelope.Task{ID: fmt.Sprintf("t%d", g), State: envelope.StatePending}
		all = append(all, message{box: "processed", at: b, msg: task})
		if g%5 != 0 { // every fifth task is still open
			upd := next(b, a, envelope.TypeTaskUpdate)
			upd.ThreadID, upd.ReplyTo = req.ID, task.ID
			upd.Task = &envelope.Task{ID: task.Task.ID, State: envelope.StateCompleted}
			all = append(all, message{box: "processed", at: a, msg: upd})
		}
		note := next(a, b, envelope.TypeMessage)
		all = append(all, message{box: "processed", at: b, msg: note})
		if info.threadID == "" && len(all) >= n*3/4 {
			info.threadID = req.ID
		}
	}
	all = all[:n]
	if err := writeMessages(root, all); err != nil {
		return info, err
	}
	info.files = len(all)
	return info, writeCards(ctx, root)
}

// writeMessages writes the files, two writers at a time (no fsync: the
// tree is set-up, not what is measured).
func writeMessages(root string, all []message) error {
	for _, agent := range append([]string{inboxAgent}, peers...) {
		for _, box := range []string{"inbox", "processed"} {
			if err := os.MkdirAll(filepath.Join(root, agent, box), 0o700); err != nil {
				return err
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range errs {
		wg.Go(func() {
			for i := w; i < len(all); i += len(errs) {
				m := all[i]
				data, err := envelope.EncodeCompact(m.msg)
				if err == nil {
					name := fmt.Sprintf("%d_%s_%08x.msg.json", m.msg.Timestamp.UnixMilli(), m.msg.From, i)
					err = os.WriteFile(filepath.Join(root, m.at, m.box, name), data, 0o600)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errs[0]
}

// writeCards registers every agent of the tree, as a running agent does.
func writeCards(ctx context.Context, root string) error {
	st, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	now := envelope.NewTime(time.Now())
	for _, agent := range append([]string{inboxAgent}, peers...) {
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
