package busy

import (
	"runtime"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	d := 2 * time.Millisecond
	r := Run(1, 2, 5, func() time.Time {
		deadline := time.Now().Add(d)
		time.Sleep(d)
		return deadline
	})
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Fatalf("GOMAXPROCS after Run = %d, want %d", got, procs)
	}
	if len(r.Late) != 5 {
		t.Fatalf("%d lateness samples, want 5", len(r.Late))
	}
	for i, l := range r.Late {
		if l < 0 {
			t.Fatalf("time.Sleep returned %v early", -l)
		}
		if i > 0 && l < r.Late[i-1] {
			t.Fatalf("Late not sorted: %v", r.Late)
		}
	}
	if r.WorkPerSec <= 0 {
		t.Fatalf("WorkPerSec = %v with two goroutines computing", r.WorkPerSec)
	}
	if r.Quantile(0.5) != r.Late[2] || r.Quantile(1) != r.Late[4] || (Result{}).Quantile(0.5) != 0 {
		t.Fatalf("Quantile does not index Late: %v", r.Late)
	}
}
