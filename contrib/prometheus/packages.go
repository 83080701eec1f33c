package prometheus

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashnet"
)

// A PackageCollector is a prometheus.Collector of the process-wide
// counters of packages stashnet and stashcontext (their Stats functions).
// Register one per process, besides the Collectors of its wheels:
//
//	prometheus.MustRegister(stashprom.NewPackageCollector(nil))
//
// Its metrics, all counters:
//
//	stashnet_idle_closes_total                connections that idled out
//	stashnet_deadline_expiries_total          deadlines that passed while set
//	stashnet_past_deadlines_total             deadlines set already past
//	stashcontext_timers_armed_total           timer arms for context deadlines
//	stashcontext_timers_reused_total          deadlines a pooled timer covered as it was
//	stashcontext_timers_pooled_total          timers pooled as their context ended
//	stashcontext_timers_fired_total           timer callbacks run
//	stashcontext_deadlines_expired_total      contexts ended by their deadline
type PackageCollector struct {
	descs [8]*prometheus.Desc
}

// NewPackageCollector returns a PackageCollector whose metrics carry the
// constant labels l (nil for none).
func NewPackageCollector(l prometheus.Labels) *PackageCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, nil, l)
	}
	return &PackageCollector{descs: [8]*prometheus.Desc{
		desc("stashnet_idle_closes_total", "Connections closed, or handed to OnIdle, by stashnet's IdleTimeout."),
		desc("stashnet_deadline_expiries_total", "stashnet deadlines that passed while set."),
		desc("stashnet_past_deadlines_total", "stashnet deadlines set already past, which fail I/O at once."),
		desc("stashcontext_timers_armed_total", "Timer arms for stashcontext deadlines."),
		desc("stashcontext_timers_reused_total", "stashcontext deadlines that a pooled timer, still armed, covered as it was."),
		desc("stashcontext_timers_pooled_total", "stashcontext timers put back in the pool as their context ended."),
		desc("stashcontext_timers_fired_total", "stashcontext timer callbacks run."),
		desc("stashcontext_deadlines_expired_total", "stashcontext contexts canceled by their own deadline."),
	}}
}

// Describe sends the descriptors of the collector's metrics.
func (c *PackageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect reads stashnet.Stats and stashcontext.Stats and sends them as
// metrics.
func (c *PackageCollector) Collect(ch chan<- prometheus.Metric) {
	n, x := stashnet.Stats(), stashcontext.Stats()
	for i, v := range [8]int64{
		n.IdleCloses, n.Expiries, n.PastDeadlines,
		x.Armed, x.Reused, x.Pooled, x.Fired, x.Expired,
	} {
		ch <- prometheus.MustNewConstMetric(c.descs[i], prometheus.CounterValue, float64(v))
	}
}
