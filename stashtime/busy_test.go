package stashtime_test

import (
	"fmt"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/busy"
	"github.com/stashgo/stash/stashtime"
)

// TestBusyProgram checks that in a program whose other goroutines compute
// and never touch a timer, the wheel's timers reach their waiters about as
// soon as package time's. There a timer is late by the scheduler's time
// slices whoever runs it (package time's by 10-20 ms), so the test
// compares the two in one run, alternating, rather than against a bound of
// its own: the wheel's median lateness at most twice time's plus 5 ms.
// A driver that queued for a P behind the computing goroutines, and then
// queued the waiter behind them again, came four times as late.
func TestBusyProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 3 s")
	}
	if stashtime.RaceEnabled {
		// The race detector's scheduler puts a readied goroutine in the
		// P's next slot only half the time, at random; a timer that
		// reaches its waiter through the driver meets that twice.
		t.Skip("the race detector randomizes the scheduler's run-next slot")
	}
	probe := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	if metrics.Read(probe); probe[0].Value.Kind() != metrics.KindUint64 {
		// Without them the poller cannot tell that the Ps are crowded.
		t.Skip("runtime/metrics has no scheduler counts before Go 1.26")
	}
	const d = 2 * time.Millisecond
	waits := map[string]func() time.Time{
		"time chan": func() time.Time {
			deadline := time.Now().Add(d)
			<-time.NewTimer(d).C
			return deadline
		},
		"stash chan": func() time.Time {
			deadline := time.Now().Add(d)
			<-stashtime.NewTimer(d).C
			return deadline
		},
		"time AfterFunc": func() time.Time {
			done := make(chan struct{})
			deadline := time.Now().Add(d)
			time.AfterFunc(d, func() { close(done) })
			<-done
			return deadline
		},
		"stash AfterFunc": func() time.Time {
			done := make(chan struct{})
			deadline := time.Now().Add(d)
			stashtime.AfterFunc(d, func() { close(done) })
			<-done
			return deadline
		},
	}
	for _, c := range []struct {
		procs, spinners int
		kind            string
	}{
		{1, 4, "chan"},
		{2, 4, "AfterFunc"},
	} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d/spinners=%d/%s", c.procs, c.spinners, c.kind), func(t *testing.T) {
			var late [2][]time.Duration // time, stash
			for round := range 4 {
				for i := range 2 {
					impl := (round + i) % 2 // alternate which goes first
					name := [2]string{"time ", "stash "}[impl] + c.kind
					r := busy.Run(c.procs, c.spinners, 8, waits[name])
					late[impl] = append(late[impl], r.Late...)
				}
			}
			timeP50, stashP50 := median(late[0]), median(late[1])
			t.Logf("median lateness: time %v, stash %v", timeP50, stashP50)
			if limit := 2*timeP50 + 5*time.Millisecond; stashP50 > limit {
				t.Errorf("stash's timers reached their waiters %v late at the median, time's %v: more than %v", stashP50, timeP50, limit)
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2]
}
