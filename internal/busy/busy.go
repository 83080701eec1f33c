// Package busy measures how late timers reach their waiters in a busy
// program: one whose other goroutines compute and never touch a timer. The
// test that keeps stashtime's timers as prompt as package time's there and
// the bench's busy row both run Run, so that both measure one shape.
package busy

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A Result is what one Run measured.
type Result struct {
	// Late holds how long after its deadline each wait returned, sorted.
	Late []time.Duration
	// WorkPerSec is the units of work the computing goroutines did per
	// second of the measured waits, all together.
	WorkPerSec float64
}

// Quantile returns the q-quantile of r.Late (0.5 the median), or 0 if it
// is empty.
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Late) == 0 {
		return 0
	}
	return r.Late[min(int(q*float64(len(r.Late))), len(r.Late)-1)]
}

// Warmup is how many waits Run makes before it starts measuring: the first
// ones pay for starting what serves them (a wheel's driver, say), and for
// finding out that goroutines compute (a wheel's first timer after they
// start comes late once; see the poller's crowding). Run measures the
// steady state.
const Warmup = 8

// Run runs n waits with GOMAXPROCS set to procs and spinners goroutines
// computing meanwhile, after Warmup waits that it does not measure, and
// puts GOMAXPROCS back. Each call of wait blocks until a timer reaches it
// and returns the deadline that timer was for; Run notes how long after
// that deadline wait returned.
func Run(procs, spinners, n int, wait func() time.Time) Result {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var (
		stop atomic.Bool
		work atomic.Int64
		wg   sync.WaitGroup
	)
	for range spinners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spin(&stop, &work)
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for range Warmup {
		wait()
	}
	late := make([]time.Duration, n)
	start, work0 := time.Now(), work.Load()
	for i := range late {
		deadline := wait()
		late[i] = time.Since(deadline)
	}
	elapsed := time.Since(start)
	slices.Sort(late)
	return Result{Late: late, WorkPerSec: float64(work.Load()-work0) / elapsed.Seconds()}
}

// sink keeps the spinners' arithmetic from being optimised away.
var sink atomic.Uint64

// spin computes until stop is set, adding one to work per unit (a few
// microseconds of arithmetic, with no call the scheduler could switch at).
func spin(stop *atomic.Bool, work *atomic.Int64) {
	x := uint64(1)
	for !stop.Load() {
		for j := range uint64(4096) {
			x = x*6364136223846793005 + j
		}
		work.Add(1)
	}
	sink.Add(x)
}
