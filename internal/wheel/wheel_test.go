package wheel

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bucketOf, bucketNum and bucketStart on buckets of 2^20 ns: a bucket is
// named by its index modulo 2^32, and bucketStart recovers the bucket of a
// name that lies within 2^31 buckets of the reference, ahead or behind.
func TestBucketNames(t *testing.T) {
	const b = int64(1 << 20)
	w := &Wheel{bucket: b}
	for _, c := range []struct{ when, want int64 }{
		{0, 0}, {b - 1, 0}, {b, b}, {5*b + 7, 5 * b}, {math.MaxInt64, math.MaxInt64 - (math.MaxInt64 % b)},
	} {
		assert.Equal(t, c.want, w.bucketOf(c.when), "bucketOf(%d)", c.when)
	}
	for _, c := range []struct {
		start int64
		want  uint32
	}{
		{0, 0}, {5 * b, 5}, {(1<<32 - 1) * b, math.MaxUint32}, {(1 << 32) * b, 0}, {(1<<32 + 3) * b, 3},
	} {
		assert.Equal(t, c.want, w.bucketNum(c.start), "bucketNum(%d buckets)", c.start/b)
	}
	for _, c := range []struct {
		n        uint32
		ref      int64 // in buckets
		want     int64 // in buckets
		whatCase string
	}{
		{5, 0, 5, "ahead"},
		{0, 5, 0, "behind"},
		{math.MaxUint32, 0, -1, "one behind across zero"},
		{3, 1 << 32, 1<<32 + 3, "ahead after a wrap"},
		{math.MaxUint32, 1<<32 + 10, 1<<32 - 1, "behind across a wrap"},
		{1<<31 - 1, 0, 1<<31 - 1, "the farthest ahead"},
		{1 << 31, 0, -(1 << 31), "2^31 ahead is taken for behind"},
	} {
		got := w.bucketStart(c.n, c.ref*b+b/2)
		assert.Equal(t, c.want*b, got, "%s: bucketStart(%d, bucket %d) in buckets: %d", c.whatCase, c.n, c.ref, got/b)
	}
}
