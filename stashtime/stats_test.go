package stashtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
