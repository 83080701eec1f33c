package poller

import "runtime/metrics"

// A sleep that keeps its P in a system call (see epollWait) is cheap only
// while the runtime's monitor (sysmon) leaves the P alone, which it does
// while another P is idle. When none is, the monitor takes the P back once
// it has seen it in the system call at two of its looks, and every time
// it takes one it goes back to looking every 20 µs for a millisecond or
// more: a driver that sleeps a few milliseconds at a time in a busy
// process keeps the monitor polling, and its threads trading the P.
//
// The Ps are crowded when every one runs a goroutine, or is in a system
// call, and goroutines wait to run. Just after the driver readied
// goroutines that is often so for a moment, in a quiet process too, so a
// sleep gives its P up only once crowdedAfter sleeps in a row have found
// the Ps crowded, and keeps it again from the first that finds them not.
const crowdedAfter = 3

// crowding reads the scheduler's state from runtime/metrics and counts
// the sleeps in a row that found the Ps crowded. Only the waiter uses it.
type crowding struct {
	samples [4]metrics.Sample
	run     int
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

// handOff reports whether a sleep about to start should give its P up:
// whether this one and the crowdedAfter-1 before it found the Ps crowded.
// It reads the scheduler's state, which takes the scheduler's lock for a
// moment (about 0.4 µs in all, and no allocation: BenchmarkCrowding). A
// toolchain older than Go 1.26 has no such metrics, and then it never
// reports true.
func (c *crowding) handOff() bool {
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
	return c.run >= crowdedAfter
}
