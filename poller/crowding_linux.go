package poller

import "runtime/metrics"

// The Ps are crowded when every one runs a goroutine, or is in a system
// call, and goroutines wait to run. A sleep then gives up its P, whatever
// its length: the runtime's monitor would take a P left in a system call
// back within two of its looks, and after each time it does it looks
// every 20 µs for a millisecond or more. Just after the driver readied
// goroutines the Ps are often crowded for a moment, in a quiet process
// too, so a sleep gives its P up only once crowdedAfter sleeps in a row
// have found them crowded.
//
// A waiter woken by the timerfd may then wait again, for a P: its thread
// puts it on the global run queue, behind goroutines that may each run a
// time slice, where a waiter woken by a runtime timer runs next (see
// waitScheduled). Crowded Ps do not make that wait long by themselves: a
// hundred goroutines that each sleep a few hundred microseconds keep them
// crowded, yet each blocks again within microseconds, and a waiter woken
// by the timerfd gets a P at once, where a runtime timer would cost it the
// runtime's millisecond. Only goroutines that compute make the wait long.
// So a sleep goes through the scheduler only while the Ps are crowded and
// a wake-up by the timerfd, since they were last found not crowded, got
// its P lateWake or more after its deadline. The first timer after
// goroutines start computing comes that late, once; the next ones come as
// the runtime's do. lateWake is half the time slice the runtime gives a
// goroutine that computes: a wake-up that waited behind one waited that
// long, and one that waited behind goroutines about to block did not. (A
// lower threshold costs AfterFunc chains their lead in lateness: see
// docs/measured.md, "In a busy program".)
const (
	crowdedAfter = 3
	lateWake     = int64(5e6) // see below
)

// How a sleep waits, as check decides.
const (
	waitKeepP    = iota // in epoll_wait, keeping the P if short (see epollWait)
	waitWithoutP        // in epoll_wait, the P given up
	waitOnTimer         // on a runtime timer (see waitScheduled)
)

// crowding reads the scheduler's state from runtime/metrics and remembers
// whether a timerfd wake-up came late while the Ps were crowded. Only the
// waiter uses it.
type crowding struct {
	samples [4]metrics.Sample
	run     int  // checks in a row that found the Ps crowded
	late    bool // a timerfd wake-up came lateWake late since they were last not
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

// scheduled reports whether the last check sent its sleep through the
// scheduler.
func (c *crowding) scheduled() bool { return c.run > 0 && c.late }

// woke notes how long after its deadline a waiter woken by the timerfd
// got its P.
func (c *crowding) woke(late int64) {
	if late >= lateWake {
		c.late = true
	}
}

// check reads the scheduler's state as a sleep starts and returns how the
// sleep is to wait: waitKeepP, waitWithoutP or waitOnTimer. The
// reading takes the scheduler's lock for a moment (about 0.4 µs in all,
// and no allocation: BenchmarkCrowding). A toolchain older than Go 1.26
// has no such metrics, and then it always returns waitKeepP.
func (c *crowding) check() int {
	if c.always {
		c.run, c.late = c.run+1, true
		return waitOnTimer
	}
	metrics.Read(c.samples[:])
	for _, s := range c.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return waitKeepP
		}
	}
	procs, running := c.samples[0].Value.Uint64(), c.samples[1].Value.Uint64()
	inSyscall, runnable := c.samples[2].Value.Uint64(), c.samples[3].Value.Uint64()
	if running+inSyscall < procs || runnable == 0 {
		c.run, c.late = 0, false
		return waitKeepP
	}
	c.run++
	switch {
	case c.late:
		return waitOnTimer
	case c.run >= crowdedAfter:
		return waitWithoutP
	}
	return waitKeepP
}
