package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/conversation"
)

// isExit reports the words that leave the prompt of `switchboard
// agent`, as nanobot's.
func isExit(line string) bool {
	switch strings.ToLower(line) {
	case "exit", "quit", "/exit", "/quit", ":q":
		return true
	}
	return false
}

// talk is one `switchboard agent`: the terminal channel, the chat, and
// what was printed of it.
type talk struct {
	a    *app
	tc   terminalChat
	chat string
	name string // the agent's name, before its answers at the prompt

	mu      sync.Mutex
	printed int64         // the Seq of the last answer printed
	changed chan struct{} // closed when printed grows
}

// once sends text, prints the answer and, for up to wait, the answers to
// the updates of the tasks it delegated, until the chat settles.
func (t *talk) once(ctx context.Context, text string, wait time.Duration) error {
	book := t.tc.Conversation()
	id, err := t.tc.Say(ctx, t.chat, text)
	if err != nil {
		return err
	}
	out := t.a.env.Stdout
	var failure error
	show := func(an conversation.Answer) {
		if an.ReplyTo == id && an.Failure != "" {
			failure = fmt.Errorf("the agent could not answer: %s", an.Failure)
			return
		}
		fmt.Fprintln(out, safeLines(an.Text))
	}
	var last int64
	if err := book.Follow(ctx, t.chat, id, false, func(an conversation.Answer) { last = an.Seq; show(an) }); err != nil {
		return err
	}
	if failure != nil || wait <= 0 {
		return failure
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err = book.Follow(wctx, t.chat, id, true, func(an conversation.Answer) {
		if an.Seq > last {
			show(an)
		}
	})
	var unsettled *conversation.UnsettledError
	if errors.As(err, &unsettled) && ctx.Err() == nil {
		what := "the answer to the last task update not printed"
		if open := unsettled.Status.Open; len(open) > 0 {
			tasks := make([]string, len(open))
			for i, task := range open {
				tasks[i] = task.ID + " (" + task.Agent + ")"
			}
			what = "delegated task " + strings.Join(tasks, ", ") + " not finished"
		}
		return fmt.Errorf("%s within --wait %s; results come back to session %s:%s later (switchboard agent -s %s)",
			safeText(what), wait, terminalType, safeText(t.chat), safeText(t.chat))
	}
	return err
}

// prompt reads lines from stdin until exit, Ctrl-D or ctx's end, sends
// each and prints every answer of the chat as it comes.
func (t *talk) prompt(ctx context.Context) error {
	in := t.a.env.Stdin
	if in == nil {
		in = os.Stdin
	}
	tty := isTerminal(in) && isTerminal(t.a.env.Stdout)
	book := t.tc.Conversation()
	t.printed = book.Status(t.chat).Last // earlier answers are in the session's history
	t.changed = make(chan struct{})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var screen sync.Mutex // one writer at a time
	go t.show(ctx, &screen, tty)
	if tty {
		screen.Lock()
		fmt.Fprintf(t.a.env.Stdout, "Talking to %s in session %s:%s; type exit or press Ctrl-D to leave.\n", safeText(t.name), terminalType, safeText(t.chat))
		screen.Unlock()
	}
	lines := readLines(in)
	for {
		if tty {
			screen.Lock()
			fmt.Fprint(t.a.env.Stdout, "> ")
			screen.Unlock()
		}
		var line string
		select {
		case <-ctx.Done():
			if tty {
				fmt.Fprintln(t.a.env.Stdout) // off the prompt's line
			}
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				if tty {
					fmt.Fprintln(t.a.env.Stdout)
				}
				return nil // Ctrl-D, or the end of piped input
			}
			line = strings.TrimSpace(l)
		}
		if line == "" {
			continue
		}
		if isExit(line) {
			return nil
		}
		id, err := t.tc.Say(ctx, t.chat, line)
		if err != nil {
			return err
		}
		var seq int64
		if err := book.Follow(ctx, t.chat, id, false, func(an conversation.Answer) { seq = max(seq, an.Seq) }); err != nil {
			return err
		}
		if err := t.shown(ctx, seq); err != nil {
			return err
		}
	}
}

// show prints every answer of the chat as it comes, until ctx ends.
func (t *talk) show(ctx context.Context, screen *sync.Mutex, tty bool) {
	book := t.tc.Conversation()
	for {
		t.mu.Lock()
		after := t.printed
		t.mu.Unlock()
		answers, err := book.Wait(ctx, t.chat, after)
		if err != nil {
			return
		}
		screen.Lock()
		for _, an := range answers {
			if tty {
				fmt.Fprint(t.a.env.Stdout, "\r")
			}
			fmt.Fprintf(t.a.env.Stdout, "%s: %s\n", safeText(t.name), safeLines(an.Text))
		}
		screen.Unlock()
		t.mu.Lock()
		t.printed = answers[len(answers)-1].Seq
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
	}
}

// shown waits until the answer seq is printed.
func (t *talk) shown(ctx context.Context, seq int64) error {
	for {
		t.mu.Lock()
		done, changed := t.printed >= seq, t.changed
		t.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readLines sends the lines of r on the channel it returns, closed at
// the end of r (or a read error). The goroutine ends with the process
// when r never ends (a terminal left open).
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// safeLines is safeText line by line: the line breaks of an answer are
// kept.
func safeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = safeText(l)
	}
	return strings.Join(lines, "\n")
}

// isTerminal reports whether r or w is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && terminalWidth(f) > 0
}
