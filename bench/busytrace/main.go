// Command busytrace shows where the time goes between a timer's deadline
// and its waiter running, in a program whose other goroutines compute (the
// shape of the bench's busy rows). It runs the waits under runtime/trace
// and reads the trace back:
//
//	go run ./bench/busytrace -procs 1 -spinners 4
//
// For each implementation it prints the waiters' lateness and, from the
// trace, how long the wheel's driver waited to run once it was woken (by
// the kernel from epoll_wait, or by the scheduler from a runtime timer) and
// how long the waiter waited to run once readied.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/stashgo/stash/internal/busy"
	"github.com/stashgo/stash/stashtime"
)

func main() {
	procs := flag.Int("procs", 1, "GOMAXPROCS while the waits run")
	spinners := flag.Int("spinners", 4, "goroutines that compute meanwhile")
	n := flag.Int("n", 20, "waits per implementation")
	d := flag.Duration("d", 2*time.Millisecond, "how far ahead each timer is due")
	flag.Parse()
	for _, impl := range []string{"time", "stash"} {
		newTimer := func() <-chan time.Time { return time.NewTimer(*d).C }
		if impl == "stash" {
			newTimer = func() <-chan time.Time { return stashtime.NewTimer(*d).C }
		}
		var buf bytes.Buffer
		if err := trace.Start(&buf); err != nil {
			fmt.Fprintln(os.Stderr, "busytrace:", err)
			os.Exit(1)
		}
		r := busy.Run(*procs, *spinners, *n, func() time.Time {
			deadline := time.Now().Add(*d)
			<-newTimer()
			return deadline
		})
		trace.Stop()
		h, err := hops(&buf)
		if err != nil {
			fmt.Fprintln(os.Stderr, "busytrace:", err)
			os.Exit(1)
		}
		fmt.Printf("%-5s GOMAXPROCS=%d, %d computing: waiter late p50 %v, max %v\n", impl, *procs, *spinners, r.Quantile(0.5), r.Quantile(1))
		for _, k := range []string{"driver, woken by the kernel (epoll_wait)", "driver, woken by the scheduler (runtime timer)", "waiter, readied"} {
			if ds := h[k]; len(ds) > 0 {
				slices.Sort(ds)
				fmt.Printf("  %-48s runnable -> running: n=%d p50 %v max %v\n", k, len(ds), ds[len(ds)/2], ds[len(ds)-1])
			}
		}
	}
}

// hops reads a trace and returns, for the wheel's driver and for the other
// goroutines that block (the waiters), how long each waited on a run queue
// from being made runnable to running.
func hops(r io.Reader) (map[string][]time.Duration, error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return nil, err
	}
	driver := map[xtrace.GoID]bool{}
	type made struct {
		at   xtrace.Time
		from xtrace.GoState
	}
	runnable := map[xtrace.GoID]made{}
	out := map[string][]time.Duration{}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		id := st.Resource.Goroutine()
		for f := range st.Stack.Frames() {
			if strings.Contains(f.Func, "internal/wheel.(*Wheel).run") {
				driver[id] = true
			}
		}
		from, to := st.Goroutine()
		switch {
		case to == xtrace.GoRunnable && (from == xtrace.GoSyscall || from == xtrace.GoWaiting):
			runnable[id] = made{ev.Time(), from}
		case from == xtrace.GoRunnable && to == xtrace.GoRunning:
			m, ok := runnable[id]
			if !ok {
				continue
			}
			delete(runnable, id)
			k := "waiter, readied"
			if driver[id] {
				k = "driver, woken by the scheduler (runtime timer)"
				if m.from == xtrace.GoSyscall {
					k = "driver, woken by the kernel (epoll_wait)"
				}
			}
			out[k] = append(out[k], time.Duration(ev.Time()-m.at))
		}
	}
}
