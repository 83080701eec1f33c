package prometheus_test

import (
	"fmt"
	"log"
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	stashprom "github.com/stashgo/stash/contrib/prometheus"
	"github.com/stashgo/stash/stashtime"
)

// A wheel's collector registered with a registry, as a program would
// register the process-wide wheel's (stashtime.Default()) and serve the
// registry with promhttp. The wheel runs on a manual clock here, so that
// the figures are exact.
func ExampleNewCollector() {
	clk := stashtime.NewManualClock(stashtime.Unix(0, 0))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(stashprom.NewCollector(w, prometheus.Labels{"wheel": "example"}))

	w.NewTimer(stashtime.Millisecond)
	w.NewTimer(stashtime.Hour).Stop()
	w.NewTimer(stashtime.Hour)
	clk.Advance(2 * stashtime.Millisecond) // the first fires 1 ms late
	w.Sync()

	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	sort.Slice(mfs, func(i, j int) bool { return mfs[i].GetName() < mfs[j].GetName() })
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		switch {
		case m.GetHistogram() != nil:
			h := m.GetHistogram()
			fmt.Printf("%s: %d firings, %gs in all\n", mf.GetName(), h.GetSampleCount(), h.GetSampleSum())
		case m.GetGauge() != nil:
			fmt.Printf("%s: %g\n", mf.GetName(), m.GetGauge().GetValue())
		case mf.GetName() == "stashtime_driver_wakes_total":
			// How often the driver woke depends on scheduling.
		default:
			fmt.Printf("%s: %g\n", mf.GetName(), m.GetCounter().GetValue())
		}
	}

	// Output:
	// stashtime_lateness_seconds: 1 firings, 0.001s in all
	// stashtime_timers_fired_total: 1
	// stashtime_timers_live: 1
	// stashtime_timers_stopped_total: 1
}
