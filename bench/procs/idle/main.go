// Command idle is the raw idle process of bench/procs: a Go program that
// does nothing but wake at every interval given as its argument (a
// time.ParseDuration string) until SIGTERM or SIGINT. It imports nothing
// beyond the standard library, so that the CPU it uses is the least any
// Go process that wakes as often costs (the bench's own binary embeds
// nats-server, whose process-statistics package wakes every second from
// an initialiser, and is no such floor).
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
	if err != nil || every <= 0 {
		fmt.Fprintln(os.Stderr, "idle: bad interval:", os.Args[1])
		os.Exit(2)
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
