package stashtime

import (
	"time"

	"github.com/stashgo/stash/internal/wheel"
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
	Walks    int64 // passes of the driver: walks of the store, each firing what is due
	// Sleeps of the driver's poller that ended (a deadline came, or a
	// producer or Sync woke it): Walks less Wakes is the passes the
	// driver ran without sleeping in between.
	Wakes int64
	// Helped and HelpedFired are always 0.
	//
	// Deprecated: only the driver fires timers now; goroutines that
	// found timers due used to run passes, which these counted.
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
	// Lateness is the histogram the percentiles above are read from, for
	// a metrics system to export (contrib/prometheus does) or to add up
	// across wheels and processes.
	Lateness Histogram
}

// A Histogram is a snapshot of a wheel's lateness histogram: how long after
// its deadline each firing came.
//
// Its buckets are the same in every wheel and every process: 0, 1, 2 and
// 3 ns, then four per power of two, each a quarter of it wide. Bounds holds
// their upper bounds, inclusive, cut after the last bucket that counts a
// firing, so two histograms add up bucket by bucket over the longer one's
// Bounds. A bucket's upper bound is the largest lateness it holds, so the
// firings late by at most Bounds[i] are exactly those counted in Counts[0]
// through Counts[i] (the cumulative count of a Prometheus bucket with
// le = Bounds[i]).
type Histogram struct {
	// Bounds are the buckets' upper bounds in increasing order: bucket i
	// holds the firings late by more than Bounds[i-1] and at most
	// Bounds[i] (bucket 0: exactly on time).
	Bounds []time.Duration
	// Counts[i] is the number of firings in bucket i alone (not
	// cumulative); len(Counts) == len(Bounds).
	Counts []uint64
	// Sum is the lateness of all firings counted, added up (it wraps
	// after about 292 years of it).
	Sum time.Duration
}

// Count returns the number of firings h counts: the sum of its Counts.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Stats returns a snapshot of the wheel's counters.
func (w *Wheel) Stats() Stats {
	if w == bubbleDefault {
		if inBubble() {
			return Stats{} // package time's timers serve the bubble
		}
		w = Default()
	}
	c := w.eng.Counts()
	s := Stats{
		Live:         c.Live,
		Fired:        c.Fired,
		Stopped:      c.Stopped,
		Overflow:     c.Overflow,
		Walks:        c.Walks,
		Wakes:        c.Wakes,
		Cleans:       c.Cleans,
		Compacts:     c.Compacts,
		PollerErrors: c.PollerErrors,
	}
	s.LateP50, s.LateP90, s.LateP99, s.LateMax = wheel.LatePercentiles(&c.Lateness)
	s.Lateness.Bounds, s.Lateness.Counts = wheel.LateHistogram(&c.Lateness)
	s.Lateness.Sum = time.Duration(c.LatenessSum)
	return s
}
