package prometheus

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stashgo/stash/stashcontext"
)

// TestPackageCollector: a context that expires on a manual wheel shows in
// stashcontext's metrics, and every metric passes the linter.
func TestPackageCollector(t *testing.T) {
	c := NewPackageCollector(prometheus.Labels{"process": "test"})
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
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		t.Fatalf("no metric %s", name)
		return 0
	}

	expired, armed := value("stashcontext_deadlines_expired_total"), value("stashcontext_timers_armed_total")
	w, clk := manualWheel(t)
	ctx, cancel := stashcontext.On(w).WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := ctx.Done()
	clk.Advance(time.Second)
	w.Sync()
	<-done
	if got := value("stashcontext_deadlines_expired_total"); got < expired+1 {
		t.Errorf("stashcontext_deadlines_expired_total = %g, want at least %g", got, expired+1)
	}
	if got := value("stashcontext_timers_armed_total"); got < armed+1 {
		t.Errorf("stashcontext_timers_armed_total = %g, want at least %g", got, armed+1)
	}

	if n := testutil.CollectAndCount(c); n != 8 {
		t.Errorf("%d metrics collected, want 8", n)
	}
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
