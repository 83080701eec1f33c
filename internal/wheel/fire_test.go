package wheel

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// nextTick is the first tick after now, on the ticker's phase, missed
// ticks dropped; a tick past math.MaxInt64 is math.MaxInt64.
func TestNextTick(t *testing.T) {
	const max = math.MaxInt64
	for _, c := range []struct {
		when, period, now, want int64
	}{
		{100, 10, 100, 110},         // fired on time: the next tick
		{100, 10, 109, 110},         // late within a period
		{100, 10, 110, 120},         // exactly a tick: the one after it
		{100, 10, 153, 160},         // five missed ticks dropped
		{0, 1, 1 << 40, 1<<40 + 1},  // the smallest period
		{max - 5, 10, max - 5, max}, // past the end of time
		{0, max, 1, max},
		{max - 1, 1, max - 1, max},
	} {
		assert.Equal(t, c.want, nextTick(c.when, c.period, c.now), "nextTick(%d, %d, %d)", c.when, c.period, c.now)
	}
}

// The span a backing-off ticker skips doubles from two periods, once
// tickerIdle firings in a row have found a tick waiting, up to
// tickerIdleMax; a period that long or longer is never skipped.
func TestIdleAfter(t *testing.T) {
	const now, ms = int64(1 << 40), int64(time.Millisecond)
	for _, c := range []struct {
		period int64
		drops  uint32
		want   int64
	}{
		{ms, 0, now},
		{ms, tickerIdle - 1, now},
		{ms, tickerIdle, now + ms},       // a span of 2 periods: the next tick but one
		{ms, tickerIdle + 1, now + 3*ms}, // 4 periods
		{ms, tickerIdle + 6, now + 127*ms},
		{ms, tickerIdle + 7, now + tickerIdleMax - ms}, // 256 ms, capped
		{ms, math.MaxUint32, now + tickerIdleMax - ms},
		{1, math.MaxUint32, now + tickerIdleMax - 1},
		{tickerIdleMax - 1, tickerIdle, now + tickerIdleMax - (tickerIdleMax - 1)},
		{tickerIdleMax, math.MaxUint32, now},
		{math.MaxInt64, math.MaxUint32, now},
	} {
		assert.Equal(t, c.want-now, IdleAfter(now, c.period, c.drops)-now, "period %d, drops %d: IdleAfter - now", c.period, c.drops)
	}
}
