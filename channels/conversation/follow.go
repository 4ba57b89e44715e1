package conversation

import (
	"context"
	"fmt"
	"strings"
)

// Wait returns the answers of chat after Seq after, waiting for one if
// there are none yet; it returns ctx's error (and no answers) if none
// comes before ctx ends. It is the long poll of a reader.
func (b *Book) Wait(ctx context.Context, chatID string, after int64) ([]Answer, error) {
	for {
		as, changed := b.Since(chatID, after)
		if len(as) > 0 {
			return as, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Follow passes to each, in order, the answer of chat to the message id
// and, with settle, every answer of the chat after it until the chat has
// settled (Status.Settled): the tasks the agent delegated from it have
// ended and their last updates are answered. It returns nil then (at the
// answer to id, without settle), and an *UnsettledError if ctx ends first.
// The answer to id may have been recorded before Follow was called (a
// client asking again for a message already answered).
func (b *Book) Follow(ctx context.Context, chatID, id string, settle bool, each func(Answer)) error {
	var after int64
	found := false
	for {
		b.mu.Lock()
		c := b.chatLocked(chatID)
		as, changed, st := c.since(after), c.changed, c.status()
		b.mu.Unlock()
		for _, a := range as {
			after = a.Seq
			if found || a.ReplyTo == id {
				found = true
				each(a)
				if !settle {
					return nil
				}
			}
		}
		if found && st.Settled() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return &UnsettledError{Chat: chatID, Message: id, Answered: found, Status: st, Err: ctx.Err()}
		}
	}
}

// UnsettledError is Follow's error when its context ended first: the
// message was not answered yet, or tasks it led to are still open.
type UnsettledError struct {
	Chat, Message string
	// Answered reports that the message itself was answered.
	Answered bool
	// Status is what was still to come.
	Status Status
	// Err is the context's error.
	Err error
}

func (e *UnsettledError) Error() string {
	if !e.Answered {
		return fmt.Sprintf("message %s not answered yet: %v", e.Message, e.Err)
	}
	if len(e.Status.Open) == 0 {
		return fmt.Sprintf("the answer to the last update of a delegated task not sent yet: %v", e.Err)
	}
	tasks := make([]string, len(e.Status.Open))
	for i, t := range e.Status.Open {
		tasks[i] = t.ID + " (" + t.Agent + ")"
	}
	return fmt.Sprintf("delegated task(s) not finished yet: %s: %v", strings.Join(tasks, ", "), e.Err)
}

// Unwrap returns the context's error.
func (e *UnsettledError) Unwrap() error { return e.Err }
