package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: idle INTERVAL")
		os.Exit(2)
	}
	every, err := time.ParseDuration(os.Args[1])
	if err != nil || every < 0 {
		fmt.Fprintln(os.Stderr, "idle: bad interval:", os.Args[1])
		os.Exit(2)
	}
	if every == 0 {
		return // the bare start of a Go program
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
