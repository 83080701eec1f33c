package main

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"time"

	"github.com/stashgo/stash/internal/busy"
	"github.com/stashgo/stash/internal/loopback"
	"github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashnet"
)

// The busy rows are a program whose other goroutines compute and never
// touch a timer: how late a timer reaches the goroutine that waits for it,
// and how much work the computing goroutines get done meanwhile, at
// GOMAXPROCS 1 and 2 with 1 to 8 of them. The runtime fires its timers from
// inside the scheduler, between two goroutines' time slices; a wheel whose
// driver must first get a P would come later.

// busyWait is one kind of wait the busy rows measure: start sets up what
// the waits share on im and returns the wait (see busy.Run) and a stop.
type busyWait struct {
	name  string
	start func(im *impl) (wait func() time.Time, stop func())
}

// busyD is how far ahead each wait's timer is due.
const busyD = 2 * time.Millisecond

var busyWaits = []busyWait{
	{"chan timer", func(im *impl) (func() time.Time, func()) {
		return func() time.Time {
			deadline := time.Now().Add(busyD)
			_, c := im.newTimer(busyD)
			<-c
			return deadline
		}, func() {}
	}},
	{"AfterFunc", func(im *impl) (func() time.Time, func()) {
		return func() time.Time {
			done := make(chan struct{})
			deadline := time.Now().Add(busyD)
			im.afterFunc(busyD, func() { close(done) })
			<-done
			return deadline
		}, func() {}
	}},
	{"Sleep 500µs", func(im *impl) (func() time.Time, func()) {
		// stashtime's package Sleep is on the wheel below 1 ms.
		const d = 500 * time.Microsecond
		return func() time.Time {
			deadline := time.Now().Add(d)
			im.sleep(d)
			return deadline
		}, func() {}
	}},
	{"Ticker", func(im *impl) (func() time.Time, func()) {
		tk, c := im.newTicker(busyD)
		return func() time.Time { return <-c }, tk.Stop
	}},
	{"read deadline", func(im *impl) (func() time.Time, func()) {
		client, server, err := loopback.Pair()
		if err != nil {
			panic(fmt.Sprintf("bench: busy: loopback: %v", err))
		}
		var c net.Conn = client
		if im == implStash {
			c = stashnet.WrapConn(client)
		}
		buf := make([]byte, 1)
		return func() time.Time {
				deadline := time.Now().Add(busyD)
				c.SetReadDeadline(deadline)
				if _, err := c.Read(buf); err == nil {
					panic("bench: busy: a read with nothing sent returned data")
				}
				return deadline
			}, func() {
				c.Close()
				server.Close()
			}
	}},
	{"context deadline", func(im *impl) (func() time.Time, func()) {
		withTimeout := context.WithTimeout
		if im == implStash {
			withTimeout = stashcontext.WithTimeout
		}
		return func() time.Time {
			deadline := time.Now().Add(busyD)
			ctx, cancel := withTimeout(context.Background(), busyD)
			<-ctx.Done()
			cancel()
			return deadline
		}, func() {}
	}},
}

func busySteps(c *config) int {
	return len(c.busyProcs) * len(c.busySpinners) * len(c.busyKinds()) * 2 * c.busyRounds
}

// busyKinds returns the waits the config measures.
func (c *config) busyKinds() []busyWait {
	if c.busyAll {
		return busyWaits
	}
	return busyWaits[:2]
}

// busyRows measures every case on both implementations, alternating, and
// adds rows for the waits' p50 and p99 lateness and the computing
// goroutines' time per unit of work (lower is more work done).
func busyRows(r *runner) {
	for _, procs := range r.cfg.busyProcs {
		for _, spinners := range r.cfg.busySpinners {
			for _, bw := range r.cfg.busyKinds() {
				name := fmt.Sprintf("busy P=%d %dx compute, %s", procs, spinners, bw.name)
				var late [2][][]time.Duration // per round
				var perUnit [2][]float64
				for round := range r.cfg.busyRounds {
					for _, im := range pair(round) {
						r.prog.running(im.name, name)
						wait, stop := bw.start(im)
						res := busy.Run(procs, spinners, r.cfg.busyN, wait)
						stop()
						k := implIndex(im)
						late[k] = append(late[k], res.Late)
						perUnit[k] = append(perUnit[k], 1e9/res.WorkPerSec)
						runtime.GC()
						r.prog.step()
					}
				}
				for _, p := range []struct {
					metric string
					q      float64
				}{{"p50 late", 0.50}, {"p99 late", 0.99}} {
					r.res.add(newRow(name, p.metric, unitNs, percentiles(late[0], p.q), percentiles(late[1], p.q)))
				}
				r.res.add(newRow(name, "compute ns/unit", unitNs, perUnit[0], perUnit[1]))
			}
		}
	}
}
