package stashtime

import (
	"math"
	"testing"
	"time"
)

// The span a backing-off ticker skips doubles from two periods, once
// tickerIdle firings in a row have found a tick waiting, up to
// tickerIdleMax; a period that long or longer is never skipped.
func TestTickerIdleAfter(t *testing.T) {
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
		if got := idleAfter(now, c.period, c.drops) - now; got != c.want-now {
			t.Errorf("period %d, drops %d: now+%d, want now+%d", c.period, c.drops, got, c.want-now)
		}
	}
}

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
	if most := int64(1 + tickerIdle + 7 + 10_000/(tickerIdleMax/int64(period)) + 10); fired > most || fired <= tickerIdle {
		t.Errorf("an unread 1 ms ticker fired %d times in 10 s, want more than %d and at most %d", fired, tickerIdle, most)
	}

	start := clk.Now() - 10_000*int64(period)
	v := <-tk.C
	if got := v.Sub(clk.Epoch).Nanoseconds(); got != start+int64(period) {
		t.Fatalf("the waiting tick is %d, want the first one, %d", got, start+int64(period))
	}
	read := clk.Now()
	var got int64
	for got == 0 {
		if clk.Now()-read >= tickerIdleMax+int64(period) {
			t.Fatal("no tick within tickerIdleMax of taking the waiting one")
		}
		step()
		select {
		case v := <-tk.C:
			got = v.Sub(clk.Epoch).Nanoseconds()
		default:
		}
	}
	if (got-start)%int64(period) != 0 {
		t.Errorf("the tick after the backoff, %d, is off phase", got)
	}
	for k := int64(1); k <= 3*tickerIdle; k++ {
		step()
		select {
		case v := <-tk.C:
			if v := v.Sub(clk.Epoch).Nanoseconds(); v != got+k*int64(period) {
				t.Fatalf("tick %d after resuming is %d, want %d", k, v, got+k*int64(period))
			}
		default:
			t.Fatalf("no tick %d after resuming", k)
		}
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
		if got := v.Sub(clk.Epoch).Nanoseconds(); got != lastRead+int64(period) {
			t.Fatalf("read %d got the tick at %d, want %d (the first after the read before)", r, got, lastRead+int64(period))
		}
		lastRead = clk.Now()
	}
}
