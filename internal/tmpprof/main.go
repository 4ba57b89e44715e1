package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/view"
)

func main() {
	st, err := fsstore.Open(fsstore.Options{Root: os.Args[1]})
	if err != nil {
		panic(err)
	}
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	t := time.Now()
	var n int
	switch os.Args[2] {
	case "pending":
		l, err := view.FindPending(context.Background(), st, view.PendingFilter{})
		if err != nil {
			panic(err)
		}
		n = len(l)
	case "thread":
		l, err := view.Thread(context.Background(), st, os.Args[3])
		if err != nil {
			panic(err)
		}
		n = len(l)
	}
	pprof.StopCPUProfile()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Println(n, time.Since(t), ms.HeapSys>>20, ms.TotalAlloc>>20)
	h, _ := os.Create("/tmp/heap.prof")
	pprof.WriteHeapProfile(h)
}

func init() {
	if len(os.Args) > 2 && os.Args[2] == "skim" {
		st, _ := fsstore.Open(fsstore.Options{Root: os.Args[1]})
		f, _ := os.Create("/tmp/cpu2.prof")
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
		for i := 0; i < 10; i++ {
			t := time.Now()
			n := 0
			st.Skim(context.Background(), nil, func(s store.Skimmed) bool { n++; return true })
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Println("skim", n, time.Since(t), ms.HeapSys>>20)
		}
		pprof.StopCPUProfile()
		os.Exit(0)
	}
}
