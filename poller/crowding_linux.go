package poller

import "runtime/metrics"

// The Ps are crowded when every one runs a goroutine, or is in a system
// call, and goroutines wait to run. Then a waiter woken by the timerfd
// waits again, for a P, on the global run queue, behind goroutines that
// each run a time slice; a waiter woken by a runtime timer does not (see
// waitScheduled). Just after the driver readied goroutines the Ps are
// often crowded for a moment, in a quiet process too, so sleeps go
// through the scheduler only once crowdedAfter sleeps in a row have found
// the Ps crowded, and sleep in epoll_wait again from the first that finds
// them not.
const crowdedAfter = 3

// crowding reads the scheduler's state from runtime/metrics and counts
// the sleeps in a row that found the Ps crowded. Only the waiter uses it.
type crowding struct {
	samples [4]metrics.Sample
	run     int
	always  bool // for tests: every check finds the Ps crowded
}

func (c *crowding) init() {
	for i, name := range [...]string{
		"/sched/gomaxprocs:threads",
		"/sched/goroutines/running:goroutines",
		"/sched/goroutines/not-in-go:goroutines",
		"/sched/goroutines/runnable:goroutines",
	} {
		c.samples[i].Name = name
	}
}

// crowded reports whether the last check found the Ps crowded
// crowdedAfter times in a row.
func (c *crowding) crowded() bool { return c.run >= crowdedAfter }

// check reads the scheduler's state for a sleep about to start and reports
// whether this sleep and the crowdedAfter-1 before it found the Ps
// crowded. The reading takes the scheduler's lock for a moment (about
// 0.4 µs in all, and no allocation: BenchmarkCrowding). A toolchain older
// than Go 1.26 has no such metrics, and then it never reports true.
func (c *crowding) check() bool {
	if c.always {
		c.run++
		return true
	}
	metrics.Read(c.samples[:])
	for _, s := range c.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return false
		}
	}
	procs, running := c.samples[0].Value.Uint64(), c.samples[1].Value.Uint64()
	inSyscall, runnable := c.samples[2].Value.Uint64(), c.samples[3].Value.Uint64()
	if running+inSyscall < procs || runnable == 0 {
		c.run = 0
		return false
	}
	c.run++
	return c.crowded()
}
