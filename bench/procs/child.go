package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"github.com/nats-io/nats.go"
)

// The raw processes the bench starts from its own binary: `procs child
// MODE ARGS...`.
const childArg = "child"

// runChild runs one raw process until it is killed or stdin closes.
func runChild(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("child: no mode")
	}
	switch args[0] {
	case "watch":
		if len(args) != 2 {
			return fmt.Errorf("child watch DIR")
		}
		return childWatch(ctx, args[1])
	case "nats":
		if len(args) != 3 {
			return fmt.Errorf("child nats URL SUBJECT")
		}
		return childNATS(ctx, args[1], args[2])
	}
	return fmt.Errorf("child: unknown mode %q", args[0])
}

// childWatch prints the name of each file created in dir, seen through
// fsnotify: the raw limit of a message file noticed by another process.
func childWatch(ctx context.Context, dir string) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-w.Events:
			if ev.Has(fsnotify.Create) {
				fmt.Fprintln(out, filepath.Base(ev.Name))
				out.Flush()
			}
		case err := <-w.Errors:
			return err
		}
	}
}

// childNATS prints the data of each message on subject: the raw limit of
// a message passed through the server with plain nats.go.
func childNATS(ctx context.Context, url, subject string) error {
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	ch := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe(subject, ch)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-ch:
			out.Write(m.Data)
			out.WriteByte('\n')
			out.Flush()
		}
	}
}
