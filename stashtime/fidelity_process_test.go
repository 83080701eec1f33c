package stashtime

// Behaviour that ends the process is tested in a child (see
// internal/childproc): the test binary re-executed with a scenario, which
// TestFidelityChild runs. The parent checks the exit status and what the
// child wrote.
//
//   - Rule 19: with GODEBUG=asynctimerchan=1 the Go 1.23 semantics still
//     apply to stashtime's timers.
//   - A panicking AfterFunc callback crashes the program from its own
//     goroutine, never from the driver's, and AfterFunc(d, nil) is accepted
//     and panics only when it fires, with a message that names the mistake.
//
// What the runtime's deadlock detector sees (rule 18) is tested in
// internal/deadlock, in a test binary without this package's testify.

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/childproc"
)

// children are this package's child scenarios.
var children = &childproc.Set{
	Env:  "STASHTIME_FIDELITY_CHILD",
	Test: "TestFidelityChild",
	Scenarios: map[string]func(){
		"asynctimerchan": asyncTimerChanChild,
		"panic-callback": func() {
			AfterFunc(0, func() { panic("boom") })
			time.Sleep(5 * time.Second)
			fmt.Println("survived")
		},
		// A callback panics only after 50 other timers due around it have
		// fired: the panic in flight never stopped the wheel.
		"panic-others-keep-firing": func() {
			gate := make(chan struct{})
			AfterFunc(0, func() {
				<-gate
				panic("boom after 50")
			})
			var mu sync.Mutex
			n := 0
			for i := range 50 {
				NewTimer(time.Duration(i) * 100 * time.Microsecond) // noise
				AfterFunc(time.Duration(i)*100*time.Microsecond, func() {
					mu.Lock()
					defer mu.Unlock()
					fmt.Printf("fired %d\n", i)
					if n++; n == 50 {
						close(gate)
					}
				})
			}
			time.Sleep(5 * time.Second)
			fmt.Println("survived")
		},
		"nil-func": func() {
			AfterFunc(50*time.Millisecond, nil)
			fmt.Println("scheduled")
			time.Sleep(10 * time.Millisecond)
			fmt.Println("still running")
			time.Sleep(5 * time.Second)
			fmt.Println("survived")
		},
	},
}

// TestFidelityChild is a child's body; it is skipped in the parent.
func TestFidelityChild(t *testing.T) { children.Serve(t) }

// asyncTimerChanChild checks, in a process run with
// GODEBUG=asynctimerchan=1, that stashtime keeps the Go 1.23 semantics
// (and that time really did switch to the old ones, so the setting took).
// It prints one line per check and exits 1 on a failure.
func asyncTimerChanChild() {
	failed := false
	check := func(ok bool, format string, args ...any) {
		status := "ok"
		if !ok {
			status, failed = "FAIL", true
		}
		fmt.Printf("%s: %s\n", status, fmt.Sprintf(format, args...))
	}
	const fire = time.Millisecond
	const wait = 30 * time.Millisecond

	// Control: package time under the setting has the old, buffered
	// semantics: an expired value waits in the channel, and Stop reports
	// false.
	tt := time.NewTimer(fire)
	time.Sleep(wait)
	fmt.Printf("time: cap(C)=%d len(C)=%d Stop()=%v\n", cap(tt.C), len(tt.C), tt.Stop())

	// Stop on an expired, unreceived timer returns true, and no stale value
	// is received after it.
	t1 := NewTimer(fire)
	time.Sleep(wait)
	check(t1.Stop(), "Stop on an expired unreceived timer returns true")
	select {
	case v := <-t1.C:
		check(false, "stale value %v received after Stop", v)
	case <-time.After(wait):
		check(true, "no value after Stop")
	}

	// Reset on an expired, unreceived timer returns true and discards the
	// stale value: the next value is the new deadline's.
	t2 := NewTimer(fire)
	time.Sleep(wait)
	before := time.Now()
	check(t2.Reset(wait), "Reset on an expired unreceived timer returns true")
	v := <-t2.C
	check(!v.Before(before.Add(wait)), "value after Reset is the new deadline's (%v after Reset)", v.Sub(before))

	// Ticker: Stop discards the waiting tick, Reset too.
	tk := NewTicker(fire)
	time.Sleep(wait)
	tk.Stop()
	select {
	case <-tk.C:
		check(false, "stale tick after Ticker.Stop")
	case <-time.After(wait):
		check(true, "no tick after Ticker.Stop")
	}

	// Documented difference: C is buffered (capacity 1), where time's
	// Go 1.23 channels report capacity and length 0.
	t4 := NewTimer(fire)
	time.Sleep(wait)
	fmt.Printf("stash: cap(C)=%d len(C)=%d\n", cap(t4.C), len(t4.C))

	// Stop after the value was received returns false.
	t3 := NewTimer(fire)
	<-t3.C
	check(!t3.Stop(), "Stop after receiving returns false")

	if failed {
		os.Exit(1)
	}
}

// TestFidelityAsyncTimerChanIgnored (rule 19): GODEBUG=asynctimerchan=1
// switches package time back to the pre-Go 1.23 semantics; stashtime
// always keeps the new ones.
func TestFidelityAsyncTimerChanIgnored(t *testing.T) {
	r := children.Run(t, "asynctimerchan", 20*time.Second, "GODEBUG=asynctimerchan=1")
	t.Logf("child output:\n%s", r.Stdout)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "time: cap(C)=1 len(C)=1 Stop()=false") {
		t.Errorf("GODEBUG=asynctimerchan=1 did not take effect in package time:\n%s", r.Stdout)
	}
}

// panicFrames returns the function names of the frames of the first
// goroutine in a crash report (the one that crashed, with
// GOTRACEBACK=single), and its "created by" line.
func panicFrames(stderr string) (frames []string, createdBy string) {
	lines := strings.Split(stderr, "\n")
	i := 0
	for i < len(lines) && !regexp.MustCompile(`^goroutine \d+ \[`).MatchString(lines[i]) {
		i++
	}
	for i++; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "\t"):
		case strings.HasPrefix(l, "created by "):
			createdBy = l
		default:
			if j := strings.LastIndex(l, "("); j > 0 {
				l = l[:j]
			}
			frames = append(frames, l)
		}
	}
	return frames, createdBy
}

func hasFrame(frames []string, sub string) bool {
	for _, f := range frames {
		if strings.Contains(f, sub) {
			return true
		}
	}
	return false
}

// checkCallbackCrash asserts a crash report comes from an AfterFunc
// callback's goroutine (one the wheel started, running nothing of the
// driver's), never from the driver's.
func checkCallbackCrash(t *testing.T, r childproc.Result, panicLine string) {
	t.Helper()
	if r.TimedOut || r.Code != 2 {
		t.Fatalf("exit %d timedOut %v, want a crash (2)\nstdout:\n%s\nstderr:\n%s", r.Code, r.TimedOut, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, panicLine) {
		t.Fatalf("no %q in the crash report:\n%s", panicLine, r.Stderr)
	}
	frames, createdBy := panicFrames(r.Stderr)
	t.Logf("crashing goroutine: %v; %s", frames, createdBy)
	if !strings.Contains(createdBy, "internal/wheel.") {
		t.Errorf("the crashing goroutine was not started by the wheel (%q):\n%s", createdBy, r.Stderr)
	}
	for _, f := range []string{"internal/wheel.(*Wheel).run", "internal/wheel.(*driver)."} {
		if hasFrame(frames, f) {
			t.Errorf("the crash came from the driver (%s on the stack):\n%s", f, r.Stderr)
		}
	}
	if strings.Contains(r.Stdout, "survived") {
		t.Errorf("the program survived the callback's panic")
	}
}

// TestFidelityAfterFuncPanic: a panicking callback crashes the program
// from its own goroutine, not the driver's, and other timers due around it
// keep firing until it does.
func TestFidelityAfterFuncPanic(t *testing.T) {
	t.Run("panic-callback", func(t *testing.T) {
		t.Parallel()
		checkCallbackCrash(t, children.Run(t, "panic-callback", 20*time.Second), "panic: boom")
	})
	t.Run("panic-others-keep-firing", func(t *testing.T) {
		t.Parallel()
		r := children.Run(t, "panic-others-keep-firing", 20*time.Second)
		checkCallbackCrash(t, r, "panic: boom after 50")
		if n := strings.Count(r.Stdout, "fired "); n != 50 {
			t.Errorf("%d of 50 other callbacks ran before the crash:\n%s", n, r.Stdout)
		}
	})
}

// TestFidelityAfterFuncNil: AfterFunc(d, nil) is accepted, as by time,
// and the program crashes only when the timer fires, on the callback's
// goroutine, with a panic that names the mistake. (Package
// time dies with "fatal error: go of nil func value" on whatever goroutine
// ran the timer.)
func TestFidelityAfterFuncNil(t *testing.T) {
	r := children.Run(t, "nil-func", 20*time.Second)
	if !strings.Contains(r.Stdout, "scheduled\nstill running\n") {
		t.Errorf("AfterFunc(50ms, nil) did not return, or crashed before it fired:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
	checkCallbackCrash(t, r, "panic: stashtime: AfterFunc's f is nil (go of nil func value)")
}
