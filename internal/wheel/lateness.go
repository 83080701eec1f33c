package wheel

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// latency is a log-linear histogram of lateness in nanoseconds: four
// buckets per power of two, and their sum. Only the holder of the consumer
// role records, so sum has a single writer; anyone may read.
type latency struct {
	n   [LateBuckets]atomic.Uint64
	sum atomic.Int64
}

const LateBuckets = 64 * 4

func latencyBucket(ns int64) int {
	if ns < 4 {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1 // 2^e <= ns < 2^(e+1)
	sub := int(uint64(ns)>>(e-2)) & 3
	return e*4 + sub
}

// lateBucketTop is the largest lateness, in nanoseconds, that bucket b of
// the lateness histogram holds.
func lateBucketTop(b int) int64 {
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
func (l *latency) snapshot() (counts [LateBuckets]uint64, sum int64) {
	for i := range l.n {
		counts[i] = l.n[i].Load()
	}
	return counts, l.sum.Load()
}

// LateHistogram returns the upper bounds of the buckets of counts, and
// their counts, cut after the last non-empty bucket (stashtime's
// Histogram).
func LateHistogram(counts *[LateBuckets]uint64) (bounds []time.Duration, cs []uint64) {
	n := len(counts)
	for n > 0 && counts[n-1] == 0 {
		n--
	}
	if n == 0 {
		return nil, nil
	}
	size := n
	if n > 4 {
		size -= 4 // latencyBucket leaves buckets 4 to 7 unused
	}
	bounds = make([]time.Duration, 0, size)
	cs = make([]uint64, 0, size)
	for i := range n {
		if i >= 4 && i < 8 {
			continue
		}
		bounds = append(bounds, time.Duration(lateBucketTop(i)))
		cs = append(cs, counts[i])
	}
	return bounds, cs
}

// LatePercentiles returns the upper bounds of the buckets of counts where
// the 50th, 90th, 99th and 100th percentiles fall.
func LatePercentiles(counts *[LateBuckets]uint64) (p50, p90, p99, pmax time.Duration) {
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
				return time.Duration(lateBucketTop(i))
			}
		}
		return 0
	}
	return at(0.50), at(0.90), at(0.99), at(1)
}
