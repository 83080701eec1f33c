package prometheus

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stashgo/stash/stashtime"
)

// manualWheel starts a wheel on a manual clock and closes it when the test
// ends.
func manualWheel(t *testing.T) (*stashtime.Wheel, *stashtime.ManualClock) {
	t.Helper()
	clk := stashtime.NewManualClock(time.Unix(0, 0))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, clk
}

// TestCollector: the metrics a scrape reports are the wheel's Stats: one
// timer live, one stopped, two fired 300 µs and 2 ms late, which the
// histogram counts in the buckets up to 1.048575 ms and 4.194303 ms.
func TestCollector(t *testing.T) {
	w, clk := manualWheel(t)
	c := NewCollector(w, prometheus.Labels{"wheel": "test"})

	w.AfterFunc(time.Millisecond, func() {})
	w.NewTimer(time.Hour).Stop()
	w.NewTimer(time.Hour)
	clk.Advance(time.Millisecond + 300*time.Microsecond)
	w.Sync()
	w.NewTimer(time.Millisecond) // due at 2.3 ms, fires at 4.3 ms
	clk.Advance(3 * time.Millisecond)
	w.Sync()

	const want = `
# HELP stashtime_timers_fired_total Timer firings, ticks included.
# TYPE stashtime_timers_fired_total counter
stashtime_timers_fired_total{wheel="test"} 2
# HELP stashtime_timers_live Timers armed and not yet fired or stopped.
# TYPE stashtime_timers_live gauge
stashtime_timers_live{wheel="test"} 1
# HELP stashtime_timers_stopped_total Stop or Reset calls that disarmed a pending timer.
# TYPE stashtime_timers_stopped_total counter
stashtime_timers_stopped_total{wheel="test"} 1
# HELP stashtime_lateness_seconds How long after its deadline each timer fired.
# TYPE stashtime_lateness_seconds histogram
stashtime_lateness_seconds_bucket{wheel="test",le="1.023e-06"} 0
stashtime_lateness_seconds_bucket{wheel="test",le="4.095e-06"} 0
stashtime_lateness_seconds_bucket{wheel="test",le="1.6383e-05"} 0
stashtime_lateness_seconds_bucket{wheel="test",le="6.5535e-05"} 0
stashtime_lateness_seconds_bucket{wheel="test",le="0.000262143"} 0
stashtime_lateness_seconds_bucket{wheel="test",le="0.001048575"} 1
stashtime_lateness_seconds_bucket{wheel="test",le="0.004194303"} 2
stashtime_lateness_seconds_bucket{wheel="test",le="0.016777215"} 2
stashtime_lateness_seconds_bucket{wheel="test",le="0.067108863"} 2
stashtime_lateness_seconds_bucket{wheel="test",le="0.268435455"} 2
stashtime_lateness_seconds_bucket{wheel="test",le="1.073741823"} 2
stashtime_lateness_seconds_bucket{wheel="test",le="+Inf"} 2
stashtime_lateness_seconds_sum{wheel="test"} 0.0023
stashtime_lateness_seconds_count{wheel="test"} 2
`
	err := testutil.CollectAndCompare(c, strings.NewReader(want),
		"stashtime_timers_fired_total", "stashtime_timers_live", "stashtime_timers_stopped_total", "stashtime_lateness_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c); n != 5 {
		t.Errorf("%d metrics collected, want 5", n)
	}
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestCollectorFollowsWheel: each scrape reads the wheel afresh, and the
// driver's wake-ups show.
func TestCollectorFollowsWheel(t *testing.T) {
	w, clk := manualWheel(t)
	c := NewCollector(w, nil)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)

	value := func(name string) float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == name {
				m := mf.GetMetric()[0]
				if m.GetCounter() != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
		t.Fatalf("no metric %s", name)
		return 0
	}
	if v := value("stashtime_timers_fired_total"); v != 0 {
		t.Fatalf("fired before any timer: %v", v)
	}
	wakes := value("stashtime_driver_wakes_total")
	for range 3 {
		w.NewTimer(time.Millisecond)
		clk.Advance(time.Millisecond)
		w.Sync()
	}
	if v := value("stashtime_timers_fired_total"); v != 3 {
		t.Errorf("fired = %v, want 3", v)
	}
	if v := value("stashtime_driver_wakes_total"); v <= wakes {
		t.Errorf("driver wakes %v, not above %v after three firings", v, wakes)
	}
}

// TestCumulative: the cumulative count at each bound adds the buckets at
// or below it; bounds between the histogram's own take the count at the
// largest below; the count includes buckets beyond every bound.
func TestCumulative(t *testing.T) {
	h := stashtime.Histogram{
		Bounds: []time.Duration{0, 1, 2, 3, 5, 7, 9},
		Counts: []uint64{1, 0, 2, 0, 4, 8, 16},
	}
	count, buckets := cumulative(h, []time.Duration{1, 4, 7})
	if count != 31 {
		t.Errorf("count = %d, want 31", count)
	}
	want := map[float64]uint64{time.Duration(1).Seconds(): 1, time.Duration(4).Seconds(): 3, time.Duration(7).Seconds(): 15}
	for b, n := range want {
		if buckets[b] != n {
			t.Errorf("bucket le=%v: %d, want %d", b, buckets[b], n)
		}
	}
	if len(buckets) != len(want) {
		t.Errorf("buckets %v, want %v", buckets, want)
	}
	if count, buckets := cumulative(stashtime.Histogram{}, LatenessBounds); count != 0 || len(buckets) != len(LatenessBounds) {
		t.Errorf("empty histogram: count %d, %d buckets", count, len(buckets))
	}
}
