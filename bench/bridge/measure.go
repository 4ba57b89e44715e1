package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// path is one way a message goes from its sender to its receiver: the
// store the sender delivers to, and the store where the receiver lives.
type path struct {
	name     string
	from, to *store.Store
	receiver string
}

// paths registers the receivers and waits until the bridges copied their
// cards and read their inboxes: direct on one folder, folder → NATS, and
// folder → NATS → folder.
func (w *world) paths(ctx context.Context) ([]path, error) {
	ps := []path{
		{name: "direct (one folder)", from: w.folder, to: w.folder, receiver: "near"},
		{name: "folder → NATS (one bridge)", from: w.folder, to: w.nats, receiver: "onnats"},
		{name: "folder → NATS → folder (two)", from: w.folder, to: w.folder2, receiver: "far"},
	}
	now := envelope.NewTime(time.Now())
	for _, p := range ps {
		if _, err := p.to.UpdateCard(ctx, p.receiver, func(c *envelope.Card) {
			c.Status, c.LastHeartbeat = envelope.StatusIdle, now
		}); err != nil {
			return nil, err
		}
	}
	for _, p := range ps[1:] { // a message through is the sign the bridges are ready
		if _, err := p.latency(ctx, 1); err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return ps, nil
}

func newMessage(to string) *envelope.Message {
	return &envelope.Message{ID: envelope.NewID(), From: "sender", To: to, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 3, Trace: []string{"sender"},
		Content: envelope.Content{Parts: []envelope.Part{{Type: envelope.PartText, Text: "a message of some length, as agents send"}}}}
}

// dist is a latency distribution.
type dist struct{ p50, p99, max time.Duration }

// latency sends n messages one at a time and times each from Deliver to
// the receiver's Next.
func (p path) latency(ctx context.Context, n int) (dist, error) {
	in, err := p.to.OpenInbox(ctx, p.receiver)
	if err != nil {
		return dist{}, err
	}
	defer in.Close()
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := p.from.Deliver(ctx, newMessage(p.receiver)); err != nil {
			return dist{}, err
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		d, err := in.Next(wctx)
		cancel()
		if err != nil {
			return dist{}, err
		}
		lat = append(lat, time.Since(start))
		if err := in.Ack(ctx, d); err != nil {
			return dist{}, err
		}
	}
	slices.Sort(lat)
	return dist{p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], max: lat[len(lat)-1]}, nil
}

// throughput sends n messages at once and returns the messages per second
// from the first send to the last receipt.
func (p path) throughput(ctx context.Context, n int) (float64, error) {
	in, err := p.to.OpenInbox(ctx, p.receiver)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	start := time.Now()
	sent := make(chan error, 1)
	go func() {
		for range n {
			if err := p.from.Deliver(ctx, newMessage(p.receiver)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	for range n {
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		d, err := in.Next(wctx)
		cancel()
		if err != nil {
			return 0, err
		}
		if err := in.Ack(ctx, d); err != nil {
			return 0, err
		}
	}
	if err := <-sent; err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
