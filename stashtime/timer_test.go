package stashtime_test

// The Timer API of timer.go against rules 7 and 8 of docs/semantics.md: the
// results of Stop and Reset in each state of the current arming, no stale
// values, exactly once. (The other conformance tests, of the rules that
// span the package, are in conformance_*_test.go.)

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// A chanState puts a fresh channel timer into one state of rule 7's table
// and reports what Stop and Reset must return from there.
type chanState struct {
	name  string
	setup func(m *manualWheel) *stashtime.Timer
	want  bool
}

func chanStates() []chanState {
	return []chanState{
		{"pending", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			m.advance(stdtime.Millisecond)
			return tm
		}, true},
		{"pending_after_reset", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			tm.Reset(50 * stdtime.Millisecond)
			m.advance(10 * stdtime.Millisecond) // past the first deadline
			return tm
		}, true},
		{"expired_not_received", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			m.advance(7 * stdtime.Millisecond)
			if len(tm.C) != 1 {
				m.t.Fatal("setup: timer did not fire")
			}
			return tm
		}, true},
		{"zero_duration_not_received", func(m *manualWheel) *stashtime.Timer {
			return m.NewTimer(0)
		}, true},
		{"received", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			m.advance(5 * stdtime.Millisecond)
			<-tm.C
			return tm
		}, false},
		{"zero_duration_received", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(-1)
			<-tm.C
			return tm
		}, false},
		{"stopped", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			tm.Stop()
			return tm
		}, false},
		{"stopped_after_expiry", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			m.advance(6 * stdtime.Millisecond)
			tm.Stop() // discards the value
			return tm
		}, false},
		{"stopped_twice", func(m *manualWheel) *stashtime.Timer {
			tm := m.NewTimer(5 * stdtime.Millisecond)
			tm.Stop()
			tm.Stop()
			return tm
		}, false},
	}
}

// Stop: true while the arming is pending or its value is unreceived (which
// Stop discards), false once received or stopped; afterwards nothing of the
// old arming is ever received.
func TestConformanceStopResult(t *testing.T) {
	for _, st := range chanStates() {
		t.Run(st.name, func(t *testing.T) {
			m := newTestWheel(t, stashtime.Options{})
			tm := st.setup(m)
			if got := tm.Stop(); got != st.want {
				t.Fatalf("Stop() = %v, want %v", got, st.want)
			}
			mustNotRecv(t, tm.C, "right after Stop")
			if tm.Stop() {
				t.Fatal("second Stop() = true")
			}
			m.advance(stdtime.Hour)
			mustNotRecv(t, tm.C, "an hour after Stop")
		})
	}
}

// Reset: same results as Stop; the value of the old arming is gone, and the
// new arming fires exactly once, at its own deadline. Every direction: to
// the same bucket or another, earlier or later than the old deadline.
func TestConformanceResetResult(t *testing.T) {
	ds := []stdtime.Duration{1, 2 * stdtime.Millisecond, 4*stdtime.Millisecond + 1, 4 * bucketNs, stdtime.Minute}
	for _, st := range chanStates() {
		for _, d := range ds {
			t.Run(fmt.Sprintf("%s/d=%v", st.name, d), func(t *testing.T) {
				m := newTestWheel(t, stashtime.Options{})
				tm := st.setup(m)
				start := m.elapsed()
				if got := tm.Reset(d); got != st.want {
					t.Fatalf("Reset(%v) = %v, want %v", d, got, st.want)
				}
				mustNotRecv(t, tm.C, "right after Reset")
				if d > 1 {
					m.advance(d - 1)
					mustNotRecv(t, tm.C, "1ns before the new deadline")
				}
				m.advance(d - (m.elapsed() - start))
				mustRecv(t, tm.C, at(start+d), "at the new deadline")
				m.advance(stdtime.Hour)
				mustNotRecv(t, tm.C, "an hour after the new deadline")
				if tm.Stop() {
					t.Fatal("Stop after the reset arming was received = true")
				}
			})
		}
	}
}

// Resetting a pending timer moves its deadline in every direction: the old
// deadline never fires, the new one fires once, on time.
func TestConformanceResetDirections(t *testing.T) {
	const old = 10*bucketNs + 300*stdtime.Microsecond
	cases := []struct {
		name string
		d    stdtime.Duration // new deadline, from the same clock reading
	}{
		{"earlier_same_bucket", old - 200*stdtime.Microsecond},
		{"later_same_bucket", old + 200*stdtime.Microsecond},
		{"same_deadline", old},
		{"earlier_other_bucket", old - 4*bucketNs},
		{"later_other_bucket", old + 4*bucketNs},
		{"much_earlier", stdtime.Microsecond},
		{"much_later", 3 * stdtime.Hour},
	}
	for _, c := range cases {
		for _, kind := range []string{"chan", "func"} {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				m := newTestWheel(t, stashtime.Options{})
				m.advance(700 * stdtime.Microsecond) // off a bucket boundary
				start := m.elapsed()
				var fired atomic.Int32
				ran := make(chan stdtime.Duration, 4)
				var tm *stashtime.Timer
				if kind == "chan" {
					tm = m.NewTimer(old)
				} else {
					tm = m.AfterFunc(old, func() { fired.Add(1); ran <- m.elapsed() })
				}
				if !tm.Reset(c.d) {
					t.Fatal("Reset of a pending timer = false")
				}
				check := func(wantFired bool, what string) {
					t.Helper()
					if kind == "chan" {
						if wantFired {
							mustRecv(t, tm.C, at(start+c.d), what)
						} else {
							mustNotRecv(t, tm.C, what)
						}
						return
					}
					if wantFired {
						waitChan(t, ran, what)
					}
					stdtime.Sleep(stdtime.Millisecond) // let a wrong run show
					if n := fired.Load(); n != 1 && wantFired || n != 0 && !wantFired {
						t.Fatalf("%s: f ran %d times", what, n)
					}
				}
				for _, stop := range []stdtime.Duration{min(old, c.d) - 1, old - 1, old, old + 1} {
					if stop > m.elapsed()-start && stop < c.d {
						m.advance(stop - (m.elapsed() - start))
						check(false, fmt.Sprintf("at %v, before the new deadline %v", stop, c.d))
					}
				}
				m.advance(c.d - (m.elapsed() - start))
				check(true, "at the new deadline")
				m.advance(old + stdtime.Hour)
				if kind == "chan" {
					mustNotRecv(t, tm.C, "after the old deadline")
				} else if n := fired.Load(); n != 1 {
					t.Fatalf("f ran %d times in all", n)
				}
			})
		}
	}
}

// AfterFunc timers: Stop and Reset return true only while f has not been
// started; once it has, false, and a Reset that returns false runs f again.
func TestConformanceAfterFuncStopReset(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	runs := make(chan stdtime.Duration, 8)
	tm := m.AfterFunc(5*stdtime.Millisecond, func() { runs <- m.elapsed() })

	m.advance(4 * stdtime.Millisecond)
	if !tm.Reset(3 * stdtime.Millisecond) { // later: now due at 7ms
		t.Fatal("Reset of a pending AfterFunc = false")
	}
	m.advance(2 * stdtime.Millisecond)
	select {
	case <-runs:
		t.Fatal("f ran at the old deadline")
	default:
	}
	m.advance(stdtime.Millisecond)
	waitChan(t, runs, "f at the reset deadline")
	if tm.Stop() {
		t.Fatal("Stop after f started = true")
	}
	if tm.Reset(stdtime.Millisecond) {
		t.Fatal("Reset after f started = true")
	}
	m.advance(stdtime.Millisecond)
	waitChan(t, runs, "f after a Reset that returned false")

	if tm.Reset(stdtime.Millisecond) {
		t.Fatal("Reset after the second run = true")
	}
	if !tm.Stop() {
		t.Fatal("Stop of the pending re-armed AfterFunc = false")
	}
	if tm.Stop() || tm.Reset(2*stdtime.Millisecond) {
		t.Fatal("Stop or Reset of a stopped AfterFunc = true")
	}
	if !tm.Reset(5 * stdtime.Millisecond) {
		t.Fatal("Reset of a pending AfterFunc = false")
	}
	m.advance(4 * stdtime.Millisecond) // past the reset-over deadline of 2ms
	select {
	case <-runs:
		t.Fatal("f ran at a deadline that Reset replaced")
	default:
	}
	m.advance(stdtime.Millisecond)
	waitChan(t, runs, "f at the last deadline")
	m.advance(stdtime.Hour)
	stdtime.Sleep(stdtime.Millisecond)
	if len(runs) != 0 {
		t.Fatalf("%d extra runs of f", len(runs))
	}
}

// No stale values: when a Stop or Reset races the firing, it returns true
// (no one received the value: either the arming was pending or its value
// is discarded), and nothing of the old arming is received after it
// returns.
func TestConformanceNoStaleValues(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	for i := range heavy(2000) {
		d := stdtime.Duration(1 + i%3)
		tm := m.NewTimer(d)
		done := make(chan struct{})
		go func() { m.advance(d); close(done) }()
		var ok bool
		if i%2 == 0 {
			ok = tm.Stop()
		} else {
			ok = tm.Reset(stdtime.Hour)
		}
		v, got := tryRecv(tm.C)
		<-done
		if !ok {
			t.Fatalf("round %d: Stop/Reset racing the firing = false, though nothing was received", i)
		}
		if got {
			t.Fatalf("round %d: stale value %v received after Stop/Reset returned", i, v.Sub(epoch))
		}
		if i%2 == 1 && !tm.Stop() {
			t.Fatalf("round %d: the reset arming is not pending", i)
		}
		m.Sync()
		mustNotRecv(t, tm.C, fmt.Sprintf("round %d: after the final Stop", i))
	}
}

// Exactly once under concurrent Stop and Reset of one timer: every arming
// (the first, and one per Reset) ends in exactly one call that returned
// true, since nobody receives; with Stops alone exactly one returns true.
func TestConformanceConcurrentStops(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	const g = 8
	var ranWrongly atomic.Int32
	for round := range heavy(400) {
		var tm *stashtime.Timer
		expired := round%3 == 1
		if round%3 == 2 {
			tm = m.AfterFunc(stdtime.Millisecond, func() { ranWrongly.Add(1) })
		} else {
			tm = m.NewTimer(stdtime.Millisecond)
		}
		if expired {
			m.advance(stdtime.Millisecond) // value waiting, not received
		}
		onlyStops := round%2 == 0
		var trues, resets atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for k := range g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var ok bool
				if onlyStops || k%2 == 0 {
					ok = tm.Stop()
				} else {
					resets.Add(1)
					ok = tm.Reset(stdtime.Hour)
				}
				if ok {
					trues.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if onlyStops && trues.Load() != 1 {
			t.Fatalf("round %d: %d concurrent Stops returned true, want exactly 1", round, trues.Load())
		}
		if tm.Stop() {
			trues.Add(1)
		}
		if want := 1 + resets.Load(); trues.Load() != want {
			t.Fatalf("round %d: %d armings (1 + %d Resets) but %d true results",
				round, want, resets.Load(), trues.Load())
		}
		if tm.C != nil {
			mustNotRecv(t, tm.C, fmt.Sprintf("round %d", round))
		}
	}
	m.advance(2 * stdtime.Hour)
	stdtime.Sleep(stdtime.Millisecond)
	if n := ranWrongly.Load(); n != 0 {
		t.Fatalf("stopped AfterFuncs ran %d times", n)
	}
}
