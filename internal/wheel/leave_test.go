package wheel

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// leaveChildren check, each in a fresh process, that go.uber.org/goleak's
// VerifyNone with its default options finds no goroutine of the wheel's
// after the package-level timers were used: the driver leaves (see endDriver).
var leaveChildren = &childproc.Set{
	Env:  "STASHTIME_LEAVE_CHILD",
	Test: "TestLeaveChild",
}

func init() {
	leaveChildren.Scenarios = map[string]func(){
		"all stopped": func() {
			for range 100 {
				NewTimer(time.Minute).Stop()
				AfterFunc(time.Millisecond, func() {}).Stop()
			}
			<-After(time.Millisecond)
			tk := NewTicker(time.Millisecond)
			<-tk.C
			tk.Stop()
			verifyNone()
		},
		"hour pending": func() {
			AfterFunc(time.Hour, func() {})
			<-After(2 * time.Millisecond)
			verifyNone()
		},
		"just fired": func() {
			Sleep(500 * time.Microsecond) // on the wheel, not the runtime
			<-After(3 * time.Millisecond)
			verifyNone()
		},
	}
}

// verifyNone runs goleak.VerifyNone with its default options in a child,
// and prints "no leak" if it passed.
func verifyNone() {
	t := leaveChildren.T
	goleak.VerifyNone(t)
	if !t.Failed() {
		fmt.Println("no leak")
	}
}

// TestLeaveChild is a child's body; it is skipped in the parent.
func TestLeaveChild(t *testing.T) { leaveChildren.Serve(t) }

// TestLeaveNoGoroutine: no goroutine of the process-wide wheel's is left
// for a leak checker after a test that stopped every timer, one that left
// a timer pending an hour ahead, or one whose last timer just fired.
func TestLeaveNoGoroutine(t *testing.T) {
	for _, scenario := range []string{"all stopped", "hour pending", "just fired"} {
		t.Run(scenario, func(t *testing.T) {
			r := leaveChildren.Run(t, scenario, 30*time.Second)
			require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stdout, "no leak")
		})
	}
}

// TestLeaveAndComeBack: timers armed from many goroutines just as the
// driver leaves, or after it has left, all fire, none early, each within
// a generous bound; the driver leaves again once nothing is pending.
func TestLeaveAndComeBack(t *testing.T) {
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for round := range rounds {
		// Wait until the driver has left, or is about to.
		require.Eventually(t, w.driverGone.Load, 5*time.Second, 100*time.Microsecond, "round %d: the driver did not leave", round)
		if round%2 == 1 {
			time.Sleep(time.Duration(round) * 50 * time.Microsecond)
		}
		var wg sync.WaitGroup
		late := make(chan time.Duration, 64)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := time.Duration(i+1) * 200 * time.Microsecond
				start := time.Now()
				if i%2 == 0 {
					<-w.After(d)
				} else {
					done := make(chan struct{})
					w.AfterFunc(d, func() { close(done) })
					<-done
				}
				late <- time.Since(start) - d
			}()
		}
		wg.Wait()
		close(late)
		for l := range late {
			require.GreaterOrEqual(t, l, time.Duration(0), "round %d: fired early", round)
			require.Less(t, l, time.Second, "round %d: fired a second late", round)
		}
	}
	st := w.Stats()
	require.Equal(t, int64(0), st.Live)
}

// TestLeaveFarComesBack: with only a timer far enough ahead for the
// driver to leave, the runtime timer that brings it back does so in time:
// the timer fires no later than package time's timer due at the same
// instant, but for a margin (both are late alike on a stalled machine).
func TestLeaveFarComesBack(t *testing.T) {
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	const d = 700 * time.Millisecond // beyond leaveBeyond
	start := time.Now()
	tm := w.NewTimer(d)
	std := time.NewTimer(d)
	require.Eventually(t, w.driverGone.Load, 2*time.Second, 100*time.Microsecond, "the driver did not leave for a far timer")
	var late, stdLate time.Duration
	for range 2 {
		select {
		case <-tm.C:
			late = time.Since(start) - d
		case <-std.C:
			stdLate = time.Since(start) - d
		}
	}
	require.GreaterOrEqual(t, late, time.Duration(0))
	require.Less(t, late, stdLate+50*time.Millisecond, "the far timer fired late (package time's: %v); the last armings the checker saw:\n%s", stdLate, checkTraceDump())
}

// TestComeBackLate: a runtime timer that brings the driver back after the
// instant it left for (a loaded machine runs it late) still starts it.
func TestComeBackLate(t *testing.T) {
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	tm := w.NewTimer(300 * time.Millisecond)
	require.Eventually(t, func() bool { return w.driverGone.Load() && w.sleepUntil.Load() > w.Now()+int64(200*time.Millisecond) },
		2*time.Second, 100*time.Microsecond, "the driver did not leave for the timer")
	// As if the runtime ran its timer late, past the armed instant.
	require.True(t, w.restart.Stop(), "no runtime timer was to bring the driver back")
	require.Eventually(t, func() bool { return w.Now() > w.sleepUntil.Load() }, 2*time.Second, 100*time.Microsecond)
	w.restartDriver()
	select {
	case <-tm.C:
	case <-time.After(5 * time.Second):
		t.Fatal("the timer did not fire: the driver did not come back")
	}
}
