package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// Deadline churn, the workload of golang/go#41699 (a server with a read
// deadline per connection, moved on every read): n goroutines, each with
// one timer, loop on Reset(churnSooner), Reset(churnLater), sleep
// churnSleep. The first Reset moves the deadline sooner, the second later;
// the timer never fires. The rows are process CPU (getrusage) per loop, and
// the Resets' share of it: a loop's CPU less that of a loop that only
// sleeps, with package time's Sleep (the floor; most of a loop).
// The default 20k goroutines loop up to 1M times a second, fewer as the
// sleeps run late.
const (
	churnSooner = 5 * time.Second
	churnLater  = 10 * time.Second
	churnSleep  = 20 * time.Millisecond
)

// A churnVariant is whose timers loop and whose Sleep they sleep with; nil
// timers, none: the loop only sleeps.
type churnVariant struct {
	timers *impl
	sleep  func(time.Duration)
}

// churnVariants: time; stash's timers; no timers (the floor). All sleep
// with package time's Sleep: stashtime.Sleep of churnSleep is time.Sleep.
var churnVariants = [3]churnVariant{
	{implTime, time.Sleep},
	{implStash, time.Sleep},
	{nil, time.Sleep},
}

func churnSteps(c *config) int { return len(churnVariants) * c.churnRounds }

// churn runs the variants in turn, the order reversed every other round, and
// adds a row for each of stash's against time's.
func churn(r *runner) {
	n := r.cfg.churnN
	var cpu [len(churnVariants)][]float64
	var errs []string
	order := []int{0, 1, 2}
	for range r.cfg.churnRounds {
		for _, v := range order {
			cv := churnVariants[v]
			who, what := "", "time.Sleep"
			if v == 2 {
				who, what = "time", "sleep only"
			}
			if cv.timers != nil {
				who = cv.timers.name
			}
			r.prog.running(who, what)
			cpuPerLoop, loops := runChurn(cv, n, r.cfg.churnTime, "churn "+who+" "+what)
			if loops == 0 {
				errs = append(errs, fmt.Sprintf("%s, %s: no loop completed", who, what))
			}
			cpu[v] = append(cpu[v], cpuPerLoop)
			runtime.GC()
			r.prog.step()
		}
		slices.Reverse(order)
	}
	name := fmt.Sprintf("churn %s Reset sooner/later", measure.Count(n))
	rw := newRow(name, "CPU/loop", unitNs, cpu[0], cpu[1])
	rw.note = joinErrs(errs)
	r.res.add(rw)
	// Each round's Resets against that round's floor.
	var resets [2][]float64
	for i, floor := range cpu[2] {
		resets[0] = append(resets[0], cpu[0][i]-floor)
		resets[1] = append(resets[1], cpu[1][i]-floor)
	}
	rw = newRow(name+", the Resets", "CPU/loop - floor", unitNs, resets[0], resets[1])
	rw.note = "the floor is a loop that only sleeps (time.Sleep): " + formatNs(measure.Median(cpu[2]))
	r.res.add(rw)
}

// runChurn runs n churning goroutines of cv for a warm-up and then for dur,
// and returns the process CPU per loop completed in the second part (NaN if
// none was) and the number of those loops.
func runChurn(cv churnVariant, n int, dur time.Duration, what string) (cpuPerLoop float64, loops int64) {
	var (
		measuring atomic.Bool
		stop      atomic.Bool
		total     atomic.Int64
		wg        sync.WaitGroup
	)
	for g := range n {
		wg.Add(1)
		// Spread the goroutines' phases over one sleep.
		phase := churnSleep * time.Duration(g) / time.Duration(n)
		go func() {
			defer wg.Done()
			var t timer
			if cv.timers != nil {
				t = cv.timers.afterFunc(churnLater, noop)
			}
			cv.sleep(phase)
			var k int64 // loops ended while measuring
			for !stop.Load() {
				if t != nil {
					t.Reset(churnSooner)
					t.Reset(churnLater)
				}
				cv.sleep(churnSleep)
				if measuring.Load() {
					k++
				}
			}
			if t != nil {
				t.Stop()
			}
			total.Add(k)
		}()
	}
	cpu := measureWindow(dur, &measuring, what)
	stop.Store(true)
	wg.Wait()
	loops = total.Load()
	if loops == 0 {
		return nan, 0
	}
	return float64(cpu) / float64(loops), loops
}
