package stashtime

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a Wheel's counters. Producers count in per-P
// cells, so a snapshot taken while timers start and stop may count as live
// a timer whose Stop it does not yet see; it never misses one armed
// throughout, and on a quiet wheel every count is exact.
//
// Whether the driver keeps up shows in Walks and Wakes: a driver that keeps
// up sleeps between passes, so Wakes grows with Walks, and lateness stays
// low; one that falls behind runs pass after pass (Walks grows, Wakes does
// not) while LateP99 climbs. Stats marshals to JSON as is, durations in
// nanoseconds; examples/expvarstats publishes it through package expvar.
type Stats struct {
	Live     int64 // timers armed and not yet fired or stopped
	Fired    int64 // firings, ticks included
	Stopped  int64 // Stop or Reset calls that disarmed a pending timer
	Overflow int   // deadlines waiting beyond the store's span (the overflow area's size)
	Walks    int64 // passes: walks of the store, each firing what is due (the driver's and Helped)
	// Sleeps of the driver's poller that ended (a deadline came, or a
	// producer or Sync woke it): Walks less Helped less Wakes is the
	// passes the driver ran without sleeping in between.
	Wakes int64
	// Helped counts the passes run by goroutines other than the driver's,
	// which found a timer due while the driver was not running (see the
	// package documentation on who fires timers), and HelpedFired the
	// timers they fired: Fired less HelpedFired the driver fired.
	Helped, HelpedFired int64
	Cleans              int64 // store reclamations
	Compacts            int64 // compactions of the store slots that Stop and Reset emptied
	// Waits of the driver's poller that failed. None is known to; after
	// one the driver polls the clock every millisecond instead.
	PollerErrors int64
	// Lateness of firings: how long after its deadline each fired. Each
	// percentile is the upper bound of the histogram bucket it falls in
	// (buckets are a quarter of a power of two wide).
	LateP50, LateP90, LateP99, LateMax time.Duration
}

// Stats returns a snapshot of the wheel's counters.
func (w *Wheel) Stats() Stats {
	s := Stats{
		Live:         w.live(),
		Fired:        w.fired.Load(),
		Stopped:      w.stopped.load(),
		Overflow:     w.store.Overflow(),
		Walks:        w.walks.Load(),
		Wakes:        w.wakes.Load(),
		Helped:       w.helped.Load(),
		HelpedFired:  w.helpedFired.Load(),
		Cleans:       w.cleans.Load(),
		Compacts:     w.compacts.Load(),
		PollerErrors: w.pollerErrors.Load(),
	}
	s.LateP50, s.LateP90, s.LateP99, s.LateMax = w.late.percentiles()
	return s
}

// latency is a log-linear histogram of lateness in nanoseconds: four
// buckets per power of two. Only the driver records; anyone may read.
type latency struct {
	n [64 * 4]atomic.Uint64
}

func latencyBucket(ns int64) int {
	if ns < 4 {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1 // 2^e <= ns < 2^(e+1)
	sub := int(uint64(ns)>>(e-2)) & 3
	return e*4 + sub
}

// bucketTop is the largest value that falls in bucket b.
func bucketTop(b int) int64 {
	if b < 4 {
		return int64(b)
	}
	e, sub := b/4, b%4
	lo := int64(1)<<e + int64(sub)<<(e-2)
	return lo + int64(1)<<(e-2) - 1
}

func (l *latency) record(ns int64) { l.n[latencyBucket(ns)].Add(1) }

func (l *latency) percentiles() (p50, p90, p99, pmax time.Duration) {
	var counts [len(latency{}.n)]uint64
	var total uint64
	for i := range l.n {
		counts[i] = l.n[i].Load()
		total += counts[i]
	}
	if total == 0 {
		return
	}
	at := func(q float64) time.Duration {
		target := uint64(q * float64(total))
		if target == 0 {
			target = 1
		}
		var sum uint64
		for i, c := range counts {
			if sum += c; sum >= target {
				return time.Duration(bucketTop(i))
			}
		}
		return 0
	}
	return at(0.50), at(0.90), at(0.99), at(1)
}
