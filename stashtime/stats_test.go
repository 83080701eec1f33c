package stashtime

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// latencyBucket: exact buckets below 4 ns (negative lateness counts as 0),
// then four per power of two (so buckets 4 to 7 stay empty), and bucketTop
// is the largest value of each.
func TestLatencyBucket(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want int
	}{
		{-5, 0}, {0, 0}, {1, 1}, {3, 3},
		{4, 8}, {5, 9}, {7, 11}, {8, 12}, {9, 12}, {10, 13},
		{1023, 39}, {1024, 40}, {1 << 20, 80},
		{math.MaxInt64, 62*4 + 3},
	} {
		assert.Equal(t, c.want, latencyBucket(c.ns), "latencyBucket(%d)", c.ns)
	}
	for b := 8; b < 62*4+3; b++ {
		top := bucketTop(b)
		assert.Equal(t, b, latencyBucket(top), "bucketTop(%d) = %d", b, top)
		assert.Equal(t, b+1, latencyBucket(top+1), "bucketTop(%d)+1", b)
	}
}

// TestHistogramBuckets: each recorded lateness lands in the bucket whose
// bounds enclose it, the sum and count are exact, the bounds stop at the
// last non-empty bucket, and a shorter histogram's bounds are a prefix of
// a longer one's, so that histograms add up bucket by bucket.
func TestHistogramBuckets(t *testing.T) {
	values := []int64{0, 1, 3, 4, 5, 7, 8, 1000, 1000, 1023, 1024, 300_000, 1 << 20, 3<<20 + 1}
	var l latency
	var sum int64
	for _, v := range values {
		l.record(v)
		sum += v
	}
	l.record(-5) // a clock read before the deadline counts as on time
	counts, s := l.snapshot()
	h := histogram(&counts, s)

	require.Equal(t, len(h.Bounds), len(h.Counts))
	assert.Equal(t, time.Duration(sum), h.Sum)
	assert.Equal(t, uint64(len(values)+1), h.Count())
	assert.Equal(t, time.Duration(0), h.Bounds[0])
	assert.Equal(t, uint64(2), h.Counts[0], "0 and -5 on time")
	for i := 1; i < len(h.Bounds); i++ {
		require.Less(t, h.Bounds[i-1], h.Bounds[i], "bounds %d and %d", i-1, i)
	}
	assert.NotZero(t, h.Counts[len(h.Counts)-1], "the last bucket kept is empty")
	for _, v := range values {
		i := latencyBucket(v)
		if i >= 8 {
			i -= 4 // buckets 4 to 7 are unused, and left out
		}
		require.Less(t, i, len(h.Bounds), "value %d", v)
		assert.LessOrEqual(t, v, int64(h.Bounds[i]), "value %d above its bucket's bound", v)
		if i > 0 {
			assert.Greater(t, v, int64(h.Bounds[i-1]), "value %d within the bucket below", v)
		}
	}
	// Cumulative counts at a bound are exact: -5 and the values up to 1023
	// are at most 1023, and the bucket of 1024 begins above it.
	i1023 := latencyBucket(1023) - 4
	assert.Equal(t, time.Duration(1023), h.Bounds[i1023])
	var le1023 uint64
	for _, c := range h.Counts[:i1023+1] {
		le1023 += c
	}
	assert.Equal(t, uint64(1+7+3), le1023, "firings late by at most 1023 ns")

	var small latency
	small.record(100)
	sc, ss := small.snapshot()
	hs := histogram(&sc, ss)
	require.Less(t, len(hs.Bounds), len(h.Bounds))
	assert.Equal(t, h.Bounds[:len(hs.Bounds)], hs.Bounds, "bounds differ between histograms")

	var empty latency
	ec, es := empty.snapshot()
	he := histogram(&ec, es)
	assert.Empty(t, he.Bounds)
	assert.Zero(t, he.Count())
}

// TestStatsLateness: a wheel's Stats carries the histogram of its firings,
// consistent with the percentiles read from it.
func TestStatsLateness(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	w.AfterFunc(time.Millisecond, func() {})
	w.AfterFunc(time.Millisecond, func() {})
	clk.Advance(time.Millisecond + 300*time.Microsecond) // both fire 300 µs late
	w.Sync()

	s := w.Stats()
	h := s.Lateness
	require.Equal(t, uint64(2), h.Count())
	assert.Equal(t, int64(2), s.Fired)
	assert.Equal(t, 600*time.Microsecond, h.Sum)
	last := len(h.Bounds) - 1
	assert.Equal(t, uint64(2), h.Counts[last])
	assert.GreaterOrEqual(t, h.Bounds[last], 300*time.Microsecond)
	assert.Less(t, h.Bounds[last-1], 300*time.Microsecond)
	assert.Equal(t, s.LateMax, h.Bounds[last])
	assert.Equal(t, s.LateP50, h.Bounds[last])
}
