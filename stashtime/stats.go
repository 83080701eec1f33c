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
	counts, sum := w.late.snapshot()
	s.LateP50, s.LateP90, s.LateP99, s.LateMax = percentiles(&counts)
	s.Lateness = histogram(&counts, sum)
	return s
}

// latency is a log-linear histogram of lateness in nanoseconds: four
// buckets per power of two, and their sum. Only the holder of the consumer
// role records, so sum has a single writer; anyone may read.
type latency struct {
	n   [latencyBuckets]atomic.Uint64
	sum atomic.Int64
}

const latencyBuckets = 64 * 4

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

func (l *latency) record(ns int64) {
	l.n[latencyBucket(ns)].Add(1)
	// A load and a store, not an Add: there is one writer (see latency).
	l.sum.Store(l.sum.Load() + max(ns, 0))
}

// snapshot returns the buckets' counts and the sum. A snapshot taken
// while timers fire may count a firing in the buckets and not yet in the
// sum, or the other way round.
func (l *latency) snapshot() (counts [latencyBuckets]uint64, sum int64) {
	for i := range l.n {
		counts[i] = l.n[i].Load()
	}
	return counts, l.sum.Load()
}

// histogram returns counts as a Histogram, cut after the last non-empty
// bucket.
func histogram(counts *[latencyBuckets]uint64, sum int64) Histogram {
	n := len(counts)
	for n > 0 && counts[n-1] == 0 {
		n--
	}
	h := Histogram{Sum: time.Duration(sum)}
	if n == 0 {
		return h
	}
	size := n
	if n > 4 {
		size -= 4 // latencyBucket leaves buckets 4 to 7 unused
	}
	h.Bounds = make([]time.Duration, 0, size)
	h.Counts = make([]uint64, 0, size)
	for i := range n {
		if i >= 4 && i < 8 {
			continue
		}
		h.Bounds = append(h.Bounds, time.Duration(bucketTop(i)))
		h.Counts = append(h.Counts, counts[i])
	}
	return h
}

func percentiles(counts *[latencyBuckets]uint64) (p50, p90, p99, pmax time.Duration) {
	var total uint64
	for _, c := range counts {
		total += c
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
