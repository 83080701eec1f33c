package deadlock_test

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
	"github.com/stashgo/stash/stashtime"
)

// children are this package's child scenarios. A name ending in -time is
// the control: the same with package time.
var children = &childproc.Set{
	Env:  "STASHTIME_DEADLOCK_CHILD",
	Test: "TestChild",
	Scenarios: map[string]func(){
		// Use the default wheel in every way, leave nothing pending, block.
		"after-use": func() {
			useDefaultWheel()
			blockForever()
		},
		"after-use-time": func() {
			time.Sleep(time.Millisecond)
			<-time.After(time.Millisecond)
			tm := time.NewTimer(time.Hour)
			tm.Stop()
			tm.Reset(time.Millisecond)
			<-tm.C
			time.NewTimer(time.Hour).Stop()
			// Not time.AfterFunc(time.Hour, f).Stop(): a stopped func
			// timer may stay in a P's heap, and then time reports no
			// deadlock.
			blockForever()
		},
		// Stop the timer the driver is asleep toward: the wheel is empty,
		// and the driver must not stay in the poller's system call until
		// the stopped deadline.
		"stopped-while-asleep": func() {
			tm := stashtime.NewTimer(time.Hour)
			time.Sleep(20 * time.Millisecond) // the driver goes to sleep toward tm
			tm.Stop()
			blockForever()
		},
		"stopped-while-asleep-time": func() {
			tm := time.NewTimer(time.Hour)
			time.Sleep(20 * time.Millisecond)
			tm.Stop()
			blockForever()
		},
		"stopped-ticker": func() {
			tk := stashtime.NewTicker(time.Hour)
			time.Sleep(20 * time.Millisecond)
			tk.Stop()
			blockForever()
		},
		"stopped-ticker-time": func() {
			tk := time.NewTicker(time.Hour)
			time.Sleep(20 * time.Millisecond)
			tk.Stop()
			blockForever()
		},
		"stopped-afterfunc": func() {
			tm := stashtime.AfterFunc(time.Hour, func() {})
			time.Sleep(20 * time.Millisecond)
			tm.Stop()
			blockForever()
		},
		// Known gaps: package time still reports the deadlock, because
		// since Go 1.23 a channel timer is in the runtime's heap only
		// while a goroutine is blocked on its channel.
		"abandoned-after": func() {
			useDefaultWheel()
			ch := make(chan int, 1)
			ch <- 1
			select {
			case <-stashtime.After(time.Hour):
			case <-ch:
			}
			runtime.GC()
			runtime.GC()
			blockForever()
		},
		"abandoned-after-time": func() {
			ch := make(chan int, 1)
			ch <- 1
			select {
			case <-time.After(time.Hour):
			case <-ch:
			}
			runtime.GC()
			blockForever()
		},
		"referenced-timer": func() {
			keepTimer = stashtime.NewTimer(time.Hour)
			blockForever()
		},
		"referenced-timer-time": func() {
			keepTimeTimer = time.NewTimer(time.Hour)
			blockForever()
		},
		// A pending AfterFunc is not a deadlock: the program goes on
		// when it fires, as with time.
		"pending-afterfunc": func() {
			useDefaultWheel()
			c := make(chan struct{})
			stashtime.AfterFunc(200*time.Millisecond, func() { close(c) })
			<-c
			fmt.Println("woken by AfterFunc")
		},
		// Sleep(math.MaxInt64) with nothing else running: package time
		// keeps the program blocked, with no deadlock report.
		"sleep-forever": func() {
			fmt.Println("sleeping")
			stashtime.Sleep(math.MaxInt64)
		},
		"sleep-forever-time": func() {
			fmt.Println("sleeping")
			time.Sleep(math.MaxInt64)
		},
	},
}

var (
	keepTimer     *stashtime.Timer
	keepTimeTimer *time.Timer
)

func blockForever() { <-make(chan int) }

// useDefaultWheel exercises every kind of timer on the default wheel and
// leaves none pending (a stopped timer's husk stays in the store).
func useDefaultWheel() {
	stashtime.Sleep(time.Millisecond)
	<-stashtime.After(time.Millisecond)
	done := make(chan struct{})
	stashtime.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	tk := stashtime.NewTicker(time.Millisecond)
	<-tk.C
	<-tk.C
	tk.Stop()
	tm := stashtime.NewTimer(time.Hour)
	tm.Stop()
	tm.Reset(time.Millisecond)
	<-tm.C
	stashtime.NewTimer(time.Hour).Stop()
	stashtime.AfterFunc(time.Hour, func() {}).Stop()
	stashtime.Default().Sync()
}

// TestChild is a child's body; it is skipped in the parent.
func TestChild(t *testing.T) { children.Serve(t) }

// skipUnderRace skips a deadlock test in a race build: the race runtime
// never reports "all goroutines are asleep", even for <-make(chan int) in
// main.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime does not report deadlocks")
	}
}

// reportMargin is how much later than package time's child a stashtime
// child may die with the deadlock report.
const reportMargin = 500 * time.Millisecond

const deadlockMsg = "fatal error: all goroutines are asleep - deadlock!"

// reported tells whether a child died with the runtime's deadlock report.
func reported(r childproc.Result) bool {
	return r.Code == 2 && strings.Contains(r.Stderr, deadlockMsg)
}

// TestDeadlockDetected: a program that has used the default wheel, then has
// nothing pending and every goroutine blocked, dies with the runtime's
// deadlock report, as it does with package time (each case runs first with
// time, as the control, then with stashtime, which gets 5 s).
func TestDeadlockDetected(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct {
		name    string
		control bool // run the same with package time first
	}{
		{"after-use", true},
		{"stopped-while-asleep", true},
		{"stopped-ticker", true},
		// No control: time reports this one or not depending on whether
		// the stopped timer is still in a P's heap; nothing is pending, so
		// stashtime must report it.
		{"stopped-afterfunc", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var control time.Duration
			if c.control {
				start := time.Now()
				if ctl := children.Run(t, c.name+"-time", 20*time.Second); !reported(ctl) {
					t.Fatalf("control with package time: exit %d timedOut %v, stderr:\n%s", ctl.Code, ctl.TimedOut, ctl.Stderr)
				}
				control = time.Since(start)
			}
			start := time.Now()
			r := children.Run(t, c.name, 5*time.Second)
			took := time.Since(start)
			if r.TimedOut {
				t.Fatalf("package time reports the deadlock; stashtime reported none within 5s (the driver sleeps in the poller's system call toward a stopped deadline)")
			}
			if !reported(r) {
				t.Fatalf("exit %d, stderr:\n%s", r.Code, r.Stderr)
			}
			// As soon as package time: no runtime timer of the wheel's
			// stays armed once nothing is pending. The margin is for a
			// loaded machine; a timer left to bring the driver back took
			// about a second more.
			if c.control && took > control+reportMargin {
				t.Fatalf("stashtime's child died with the deadlock report after %v, package time's after %v: more than %v later", took, control, reportMargin)
			}
		})
	}
	t.Run("pending-afterfunc", func(t *testing.T) {
		t.Parallel()
		r := children.Run(t, "pending-afterfunc", 20*time.Second)
		if r.Code != 0 || !strings.Contains(r.Stdout, "woken by AfterFunc") {
			t.Fatalf("exit %d timedOut %v\nstdout:\n%s\nstderr:\n%s", r.Code, r.TimedOut, r.Stdout, r.Stderr)
		}
	})
}

// TestDeadlockKnownGaps: package time reports a deadlock when the only
// pending timers are channel timers nobody is blocked on (an abandoned
// After, a referenced but unwatched NewTimer), because since Go 1.23 such a
// timer is in the runtime's heap only while a goroutine waits on its
// channel. The wheel cannot know who waits on a channel, so its driver
// sleeps in the poller until the deadline and the runtime sees a thread in a
// system call: no deadlock is reported until then. The children are run
// with a 3 s limit; the test skips with what it saw unless
// STASHTIME_FIDELITY_STRICT is set.
func TestDeadlockKnownGaps(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("each stash case waits out its 3 s limit")
	}
	var mu sync.Mutex
	var gaps []string
	t.Run("cases", func(t *testing.T) {
		for _, name := range []string{"abandoned-after", "referenced-timer"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if ctl := children.Run(t, name+"-time", 20*time.Second); !reported(ctl) {
					t.Fatalf("control with package time: exit %d, stderr:\n%s", ctl.Code, ctl.Stderr)
				}
				r := children.Run(t, name, 3*time.Second)
				if reported(r) {
					return
				}
				mu.Lock()
				gaps = append(gaps, fmt.Sprintf("%s: time reports the deadlock, stash: exit %d timedOut %v", name, r.Code, r.TimedOut))
				mu.Unlock()
			})
		}
	})
	if len(gaps) == 0 {
		return
	}
	msg := "known gaps (rule 18):\n  " + strings.Join(gaps, "\n  ")
	if os.Getenv("STASHTIME_FIDELITY_STRICT") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestSleepForeverNoDeadlock: Sleep(math.MaxInt64) in a program where
// nothing else runs blocks, as time.Sleep does; it must not die with "all
// goroutines are asleep" (each child is given 3 s; package time's is the
// control).
func TestSleepForeverNoDeadlock(t *testing.T) {
	skipUnderRace(t)
	for _, name := range []string{"sleep-forever-time", "sleep-forever"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := children.Run(t, name, 3*time.Second)
			if !r.TimedOut || !strings.Contains(r.Stdout, "sleeping") {
				t.Fatalf("the child ended (exit %d) instead of sleeping on\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
}
