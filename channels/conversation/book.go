package conversation

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
)

// DefaultKeep is how many answers of each chat a Book keeps by default.
const DefaultKeep = 200

// Options tune a Book; zero values take the defaults.
type Options struct {
	// Path, when set, is the file that keeps the answers across restarts
	// (JSON lines, private to the user); Record returns once the answer
	// is written there and synced. "" keeps them in memory.
	Path string
	// Keep is how many answers of each chat are kept, the latest (default
	// DefaultKeep). A file also forgets the chats that got no answer for
	// MaxAge.
	Keep int
}

// MaxAge is how long a Book's file keeps a chat that got no answer.
const MaxAge = 7 * 24 * time.Hour

// Book keeps the conversations of one channel, by chat id. It is safe for
// concurrent use. Create it with Open.
type Book struct {
	channel string
	keep    int

	mu     sync.Mutex
	closed bool
	file   *answerFile // nil: memory only
	chats  map[string]*chat
	turns  map[turnKey]*turnState // the turns in progress, for the Hook
}

// chat is one chat's state.
type chat struct {
	answers []Answer // the latest, at most keep
	last    int64    // the Seq of the latest answer
	// open are the tasks delegated from the chat that have not reached a
	// final state, by id: the agent each went to.
	open map[string]string
	// turns counts the chat's turns in progress; expected, the answers
	// that turns which ended will send and the channel has not recorded.
	turns, expected int
	changed         chan struct{} // closed at the next change
}

// Open returns the Book of the channel called channel (its name on the
// bus: the Hook follows the turns of its messages). With opts.Path, the
// answers an earlier run kept are read back.
func Open(channel string, opts Options) (*Book, error) {
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	b := &Book{channel: channel, keep: opts.Keep, chats: map[string]*chat{}, turns: map[turnKey]*turnState{}}
	if opts.Path == "" {
		return b, nil
	}
	f, kept, err := openAnswerFile(opts.Path, opts.Keep, time.Now())
	if err != nil {
		return nil, err
	}
	b.file = f
	for id, answers := range kept {
		c := b.chatLocked(id)
		c.answers = answers
		c.last = answers[len(answers)-1].Seq
	}
	return b, nil
}

// chatLocked returns the chat called id, made on first use. b.mu is held.
func (b *Book) chatLocked(id string) *chat {
	c, ok := b.chats[id]
	if !ok {
		c = &chat{open: map[string]string{}, changed: make(chan struct{})}
		b.chats[id] = c
	}
	return c
}

// notify wakes whoever waits for a change of c. b.mu is held.
func (c *chat) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Record keeps out, an outbound message of the channel, as the next
// answer of its chat and returns it. With a file, the answer is synced to
// it first: once Record returned, the channel may report the message
// sent (the agent then finishes the message it answers).
func (b *Book) Record(out bus.OutboundMessage) (Answer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chatLocked(out.ChatID)
	a := Answer{Seq: c.last + 1, Chat: out.ChatID, ReplyTo: replyTo(out), Text: out.Content,
		Failure: out.Failure, Media: slices.Clone(out.Media), Time: time.Now().UTC()}
	if b.closed {
		return Answer{}, ErrClosed
	}
	if b.file != nil {
		if err := b.file.append(a, b.chats); err != nil {
			return Answer{}, err
		}
	}
	c.last = a.Seq
	c.answers = append(c.answers, a)
	if n := len(c.answers) - b.keep; n > 0 {
		c.answers = slices.Delete(c.answers, 0, n)
	}
	if c.expected > 0 {
		c.expected--
	}
	c.notify()
	return a, nil
}

// Since returns the answers of chat after Seq after, oldest first, and a
// channel closed at the chat's next change (an answer recorded, a task
// delegated or ended, a turn started or ended).
func (b *Book) Since(chatID string, after int64) ([]Answer, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chatLocked(chatID)
	return c.since(after), c.changed
}

func (c *chat) since(after int64) []Answer {
	i, _ := slices.BinarySearchFunc(c.answers, after+1, func(a Answer, seq int64) int {
		return int(a.Seq - seq)
	})
	return slices.Clone(c.answers[i:])
}

// Task is a task delegated from a chat that has not reached a final
// state.
type Task struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
}

// Status is what is still to come in a chat.
type Status struct {
	// Last is the Seq of the chat's latest answer (0: none yet).
	Last int64 `json:"last"`
	// Open are the tasks delegated from the chat and not ended, by id.
	Open []Task `json:"open_tasks"`
	// Busy reports a turn of the chat in progress, or an answer on its
	// way to the channel.
	Busy bool `json:"busy"`
}

// Settled reports that nothing more is to come: no task open and no
// turn or answer on its way.
func (s Status) Settled() bool { return len(s.Open) == 0 && !s.Busy }

// Status returns what is still to come in chat.
func (b *Book) Status(chatID string) Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.chatLocked(chatID).status()
}

func (c *chat) status() Status {
	s := Status{Last: c.last, Busy: c.turns > 0 || c.expected > 0, Open: []Task{}}
	for _, id := range slices.Sorted(maps.Keys(c.open)) {
		s.Open = append(s.Open, Task{ID: id, Agent: c.open[id]})
	}
	return s
}

// Close closes the Book's file. Record fails from then on (an answer
// that cannot be kept is not reported sent, so its message comes back).
func (b *Book) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if b.file == nil {
		return nil
	}
	return b.file.close()
}

// ErrClosed is returned by Record on a closed Book.
var ErrClosed = errors.New("conversation book closed")
