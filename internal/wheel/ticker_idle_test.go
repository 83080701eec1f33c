package wheel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An unread ticker of 1 ms fires a few times a second, not a thousand: its
// first tickerIdle drops come every period, then the spans double to
// tickerIdleMax. Once the receiver takes the waiting tick, the next comes
// within tickerIdleMax, on the ticker's phase, and from then on every
// period, as with package time.
func TestTickerIdleBacksOffAndResumes(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	const period = time.Millisecond
	tk := w.NewTicker(period)
	defer tk.Stop()
	step := func() {
		clk.Advance(period)
		w.Sync()
	}
	before := w.Stats().Fired
	for range 10_000 { // 10 s of 1 ms steps, nobody receiving
		step()
	}
	fired := w.Stats().Fired - before
	// 1 delivery, tickerIdle drops, 7 doubling spans to 134 ms, then
	// about 10 s / 134 ms.
	most := int64(1 + tickerIdle + 7 + 10_000/(tickerIdleMax/int64(period)) + 10)
	assert.Greater(t, fired, int64(tickerIdle), "firings of an unread 1 ms ticker in 10 s")
	assert.LessOrEqual(t, fired, most, "firings of an unread 1 ms ticker in 10 s")

	start := clk.Now() - 10_000*int64(period)
	v := <-tk.C
	require.Equal(t, start+int64(period), v.Sub(clk.Epoch).Nanoseconds(), "the waiting tick: want the first one")
	read := clk.Now()
	var got int64
	for got == 0 {
		require.Less(t, clk.Now()-read, tickerIdleMax+int64(period), "no tick within tickerIdleMax of taking the waiting one")
		step()
		select {
		case v := <-tk.C:
			got = v.Sub(clk.Epoch).Nanoseconds()
		default:
		}
	}
	assert.Zero(t, (got-start)%int64(period), "the tick after the backoff, %d, is off phase", got)
	for k := int64(1); k <= 3*tickerIdle; k++ {
		step()
		require.Len(t, tk.C, 1, "no tick %d after resuming", k)
		v := <-tk.C
		require.Equal(t, got+k*int64(period), v.Sub(clk.Epoch).Nanoseconds(), "tick %d after resuming", k)
	}
}

// A receiver that takes the waiting tick every tickerIdle periods (so
// tickerIdle-1 ticks are dropped in between) gets exactly package time's
// ticks: the waiting tick, and next the first tick after it took one.
func TestTickerIdleSlowReaderExact(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	const period = time.Millisecond
	tk := w.NewTicker(period)
	defer tk.Stop()
	start := clk.Now()
	lastRead := start
	for r := range 50 {
		for range tickerIdle {
			clk.Advance(period)
			w.Sync()
		}
		v := <-tk.C
		require.Equal(t, lastRead+int64(period), v.Sub(clk.Epoch).Nanoseconds(), "read %d: want the first tick after the read before", r)
		lastRead = clk.Now()
	}
}
