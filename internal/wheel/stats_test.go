package wheel

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// latencyBucket: exact buckets below 4 ns (negative lateness counts as 0),
// then four per power of two (so buckets 4 to 7 stay empty), and lateBucketTop
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
		top := lateBucketTop(b)
		assert.Equal(t, b, latencyBucket(top), "lateBucketTop(%d) = %d", b, top)
		assert.Equal(t, b+1, latencyBucket(top+1), "lateBucketTop(%d)+1", b)
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
	h := testHistogram(&counts)

	require.Equal(t, len(h.Bounds), len(h.Counts))
	assert.Equal(t, sum, s)
	assert.Equal(t, uint64(len(values)+1), h.count())
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
	sc, _ := small.snapshot()
	hs := testHistogram(&sc)
	require.Less(t, len(hs.Bounds), len(h.Bounds))
	assert.Equal(t, h.Bounds[:len(hs.Bounds)], hs.Bounds, "bounds differ between histograms")

	var empty latency
	ec, _ := empty.snapshot()
	he := testHistogram(&ec)
	assert.Empty(t, he.Bounds)
	assert.Zero(t, he.count())
}

type histogram struct {
	Bounds []time.Duration
	Counts []uint64
}

func testHistogram(counts *[LateBuckets]uint64) (h histogram) {
	h.Bounds, h.Counts = LateHistogram(counts)
	return h
}

func (h histogram) count() (n uint64) {
	for _, c := range h.Counts {
		n += c
	}
	return n
}
