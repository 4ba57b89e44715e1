package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// page is one open console page, as the browser's script runs it: it
// follows /api/events and reads /api/state when told, one read at a time
// and one more when told during a read.
type page struct {
	base string

	mu         sync.Mutex
	reads      int
	events     int
	stateBytes int64
}

// open follows the events until ctx ends; loaded is closed after the
// first state was read.
func (p *page) open(ctx context.Context, loaded chan<- struct{}) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/events?token="+token, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("events: %s", res.Status)
	}
	told := make(chan struct{}, 1)
	readErr := make(chan error, 1)
	go func() { readErr <- p.reader(ctx, told, loaded) }()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		event, ok := strings.CutPrefix(sc.Text(), "event: ")
		if !ok || (event != "ready" && event != "change") {
			continue
		}
		p.mu.Lock()
		p.events++
		p.mu.Unlock()
		select {
		case told <- struct{}{}:
		default: // a read is owed already
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("events ended: %v", sc.Err())
}

// reader reads the state each time the page is told to.
func (p *page) reader(ctx context.Context, told <-chan struct{}, loaded chan<- struct{}) error {
	first := true
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-told:
		}
		n, err := p.readState(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		p.mu.Lock()
		p.reads++
		p.stateBytes = n
		p.mu.Unlock()
		if first {
			close(loaded)
			first = false
		}
	}
}

func (p *page) readState(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/state", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Console-Token", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("state: %s", res.Status)
	}
	return n, err
}

func (p *page) counts() (reads, events int, stateBytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads, p.events, p.stateBytes
}
