// Package prometheus exports a stashtime.Wheel's counters and lateness
// histogram as Prometheus metrics. It is a module of its own, so that the
// stash library does not depend on client_golang.
//
// Register one Collector per wheel, usually the process-wide one:
//
//	import stashprom "github.com/stashgo/stash/contrib/prometheus"
//
//	prometheus.MustRegister(stashprom.NewCollector(stashtime.Default(), nil))
//
// Each scrape takes one Wheel.Stats snapshot. The metrics, all prefixed
// stashtime_ and carrying the constant labels given to NewCollector:
//
//	stashtime_timers_live              gauge      timers armed, not yet fired or stopped
//	stashtime_timers_fired_total       counter    firings, ticks included
//	stashtime_timers_stopped_total     counter    Stop and Reset calls that disarmed a pending timer
//	stashtime_driver_wakes_total       counter    sleeps of the driver that ended
//	stashtime_lateness_seconds         histogram  how long after its deadline each firing came
//
// A PackageCollector exports the process-wide counters of stashnet and
// stashcontext (idle closes, deadline expiries, context timers armed,
// pooled and fired) as stashnet_ and stashcontext_ metrics.
//
// The histogram's buckets are those of LatenessBounds; each is the upper
// bound of one of the wheel's own buckets (see stashtime.Histogram), so its
// cumulative counts are exact, and the histograms of several processes add
// up.
package prometheus

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stashgo/stash/stashtime"
)

// LatenessBounds are the upper bounds of the lateness histogram's buckets:
// 2^k-1 ns for even k from 10 to 30, that is about 1 µs, 4 µs, 16 µs and so
// on by fours to about 1.07 s. Each is the largest lateness one of the
// wheel's buckets holds.
var LatenessBounds = func() []time.Duration {
	var b []time.Duration
	for k := 10; k <= 30; k += 2 {
		b = append(b, time.Duration(1)<<k-1)
	}
	return b
}()

// A Collector is a prometheus.Collector of one wheel's Stats.
type Collector struct {
	w                           *stashtime.Wheel
	live, fired, stopped, wakes *prometheus.Desc
	lateness                    *prometheus.Desc
}

// NewCollector returns a Collector of w's metrics, each with the constant
// labels l (nil for none): to register the collectors of several wheels
// with one registry, give each a label of its own, such as
// prometheus.Labels{"wheel": "default"}.
func NewCollector(w *stashtime.Wheel, l prometheus.Labels) *Collector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("stashtime_"+name, help, nil, l)
	}
	return &Collector{
		w:        w,
		live:     desc("timers_live", "Timers armed and not yet fired or stopped."),
		fired:    desc("timers_fired_total", "Timer firings, ticks included."),
		stopped:  desc("timers_stopped_total", "Stop or Reset calls that disarmed a pending timer."),
		wakes:    desc("driver_wakes_total", "Sleeps of the wheel's driver that ended: a deadline came, or a producer woke it."),
		lateness: desc("lateness_seconds", "How long after its deadline each timer fired."),
	}
}

// Describe sends the descriptors of the Collector's metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.live, c.fired, c.stopped, c.wakes, c.lateness} {
		ch <- d
	}
}

// Collect takes a snapshot of the wheel's Stats and sends it as metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.w.Stats()
	ch <- prometheus.MustNewConstMetric(c.live, prometheus.GaugeValue, float64(s.Live))
	ch <- prometheus.MustNewConstMetric(c.fired, prometheus.CounterValue, float64(s.Fired))
	ch <- prometheus.MustNewConstMetric(c.stopped, prometheus.CounterValue, float64(s.Stopped))
	ch <- prometheus.MustNewConstMetric(c.wakes, prometheus.CounterValue, float64(s.Wakes))
	count, buckets := cumulative(s.Lateness, LatenessBounds)
	ch <- prometheus.MustNewConstHistogram(c.lateness, count, s.Lateness.Sum.Seconds(), buckets)
}

// cumulative returns h's count and, for each of bounds, the firings late
// by at most that bound, keyed by the bound in seconds. The count at a
// bound that is not the upper bound of one of h's buckets is that at the
// largest upper bound below it.
func cumulative(h stashtime.Histogram, bounds []time.Duration) (count uint64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(bounds))
	i := 0
	for _, b := range bounds {
		for ; i < len(h.Bounds) && h.Bounds[i] <= b; i++ {
			count += h.Counts[i]
		}
		buckets[b.Seconds()] = count
	}
	for ; i < len(h.Counts); i++ {
		count += h.Counts[i]
	}
	return count, buckets
}
