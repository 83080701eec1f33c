package main

import (
	"fmt"
	"time"
)

// The first timer after an idle spell. stashtime's driver leaves once no
// timer has been pending for a while (100 ms), and the next timer starts
// it again: a goroutine and the poller's first wait.
// comeback measures what that costs that timer, against time's, which
// has nothing to start: each sample idles comebackIdle, then arms a 1 ms
// timer and waits for it, and records its lateness and the process CPU
// from arming to receipt (getrusage).

// comebackIdle is longer than the driver's idle spell and a round.
const comebackIdle = 150 * time.Millisecond

func comebackSteps(c *config) int { return 2 * c.comebackSamples }

func comeback(r *runner) {
	const d = time.Millisecond
	late := map[string][]time.Duration{}
	cpu := map[string][]time.Duration{}
	for i := range r.cfg.comebackSamples {
		for _, im := range pair(i) {
			r.prog.running(im.name, "after an idle spell")
			time.Sleep(comebackIdle)
			c0 := processCPU()
			start := time.Now()
			_, c := im.newTimer(d)
			<-c
			l := time.Since(start) - d
			cpu[im.name] = append(cpu[im.name], processCPU()-c0)
			late[im.name] = append(late[im.name], l)
			r.prog.step()
		}
	}
	wl := fmt.Sprintf("first 1ms timer after %v idle", comebackIdle)
	n := max(1, min(r.cfg.rounds, r.cfg.comebackSamples/3))
	r.res.add(newRow(wl, "p50 late", unitNs,
		percentiles(blocks(late[implTime.name], n), 0.5), percentiles(blocks(late[implStash.name], n), 0.5)))
	r.res.add(newRow(wl, "CPU arm to receipt (p50)", unitNs,
		percentiles(blocks(cpu[implTime.name], n), 0.5), percentiles(blocks(cpu[implStash.name], n), 0.5)))
}
