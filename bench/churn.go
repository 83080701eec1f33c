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

// churnVariants: time; stash's timers sleeping with package time's Sleep;
// stash's timers sleeping with stashtime.Sleep; no timers, package time's
// Sleep (the floor). The time column of the first two rows is the first.
var churnVariants = [4]churnVariant{
	{implTime, time.Sleep},
	{implStash, time.Sleep},
	{implStash, implStash.sleep},
	{nil, time.Sleep},
}

func churnSteps(c *config) int { return len(churnVariants) * c.churnRounds }

// churn runs the variants in turn, the order reversed every other round, and
// adds a row for each of stash's against time's.
func churn(r *runner) {
	n := r.cfg.churnN
	var cpu [len(churnVariants)][]float64
	var errs []string
	order := []int{0, 1, 2, 3}
	for range r.cfg.churnRounds {
		for _, v := range order {
			cv := churnVariants[v]
			who, what := "", "time.Sleep"
			switch v {
			case 2:
				what = "own Sleep"
			case 3:
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
	r.res.add(row{workload: name + ", time.Sleep", metric: "CPU/loop", unit: unitNs,
		time: measure.Median(cpu[0]), stash: measure.Median(cpu[1]), note: joinErrs(errs)})
	r.res.add(row{workload: name + ", own Sleep", metric: "CPU/loop", unit: unitNs,
		time: measure.Median(cpu[0]), stash: measure.Median(cpu[2])})
	floor := measure.Median(cpu[3])
	r.res.add(row{workload: name + ", the Resets", metric: "CPU/loop - floor", unit: unitNs,
		time: measure.Median(cpu[0]) - floor, stash: measure.Median(cpu[1]) - floor,
		note: "the floor is a loop that only sleeps (time.Sleep): " + formatNs(floor)})
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
