//go:build go1.25

package stashtime

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWheelInBubblePanics: a Wheel on a ManualClock refuses at the call to
// start a timer from inside a testing/synctest bubble (the driver's send
// on a channel made there would kill the program), with a panic that says
// so.
func TestWheelInBubblePanics(t *testing.T) {
	manual, _ := newManualWheel(t, 0)
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			op   string
			call func()
		}{
			{"NewTimer", func() { manual.NewTimer(time.Hour) }},
			{"After", func() { manual.After(time.Hour) }},
			{"AfterFunc", func() { manual.AfterFunc(time.Hour, func() {}) }},
			{"NewTicker", func() { manual.NewTicker(time.Hour) }},
			{"NewTicker", func() { manual.Tick(time.Hour) }},
			{"Sleep", func() { manual.Sleep(time.Hour) }},
		} {
			want := "stashtime: " + c.op + " on a Wheel with a Clock of its own inside a testing/synctest bubble"
			if r := fmt.Sprint(panicValue(c.call)); !strings.HasPrefix(r, want) {
				t.Errorf("%s inside a bubble: panic %q, want %q...", c.op, r, want)
			}
		}
		// The package-level functions still work there, on the fake clock.
		start := time.Now()
		Sleep(time.Hour)
		if got := time.Since(start); got != time.Hour {
			t.Errorf("Sleep(time.Hour) in a bubble took %v of its clock", got)
		}
	})
	if manual.Stats().Live != 0 {
		t.Errorf("a refused call armed a timer: %+v", manual.Stats())
	}
}

// TestDefaultInBubble: code that takes a Timers and is handed Default()
// works inside a bubble, on the bubble's clock: each kind of timer takes
// exactly its duration of fake time, whether the process-wide wheel had
// started outside the bubble (here) or not (in a child process, where
// Default returns a stand-in that goes to the process-wide wheel once
// outside).
func TestDefaultInBubble(t *testing.T) {
	t.Run("started", func(t *testing.T) {
		<-After(time.Millisecond) // the process-wide wheel starts outside
		synctest.Test(t, func(t *testing.T) { useDefaultInBubble(t) })
	})
	t.Run("first use in a bubble", func(t *testing.T) {
		r := defaultChildren.Run(t, "bubble-first", 30*time.Second)
		require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
		require.Contains(t, r.Stdout, "stand-in")
	})
}

func init() {
	defaultChildren.Scenarios["bubble-first"] = func() {
		t := defaultChildren.T
		var inside *Wheel
		synctest.Test(t, func(t *testing.T) { inside = useDefaultInBubble(t) })
		require.Nil(t, defaultWheel.Load(), "the process-wide wheel started inside the bubble")
		require.Same(t, bubbleDefault, inside)
		// Outside, the stand-in is the process-wide wheel.
		<-inside.NewTimer(time.Millisecond).C
		require.Same(t, defaultWheel.Load(), Default())
		require.Equal(t, int64(1), inside.Stats().Fired)
		require.Equal(t, Default().Poller(), inside.Poller())
		fmt.Println("stand-in")
	}
}

// useDefaultInBubble uses Default() as a Timers from inside a bubble and
// checks each timer against the bubble's clock; it returns the Wheel it got.
func useDefaultInBubble(t *testing.T) *Wheel {
	w := Default()
	var tm Timers = w
	start := tm.Now()
	took := func(what string, want time.Duration) {
		t.Helper()
		if got := tm.Since(start); got != want {
			t.Errorf("%s took %v of the bubble's clock, want %v", what, got, want)
		}
		start = tm.Now()
	}
	tm.Sleep(time.Second)
	took("Sleep(1s)", time.Second)
	<-tm.NewTimer(2 * time.Second).C
	took("NewTimer(2s)", 2*time.Second)
	<-tm.After(3 * time.Second)
	took("After(3s)", 3*time.Second)
	done := make(chan struct{})
	tm.AfterFunc(4*time.Second, func() { close(done) })
	<-done
	took("AfterFunc(4s)", 4*time.Second)
	tk := tm.NewTicker(5 * time.Second)
	<-tk.C
	<-tk.C
	tk.Stop()
	took("two ticks of NewTicker(5s)", 10*time.Second)
	<-tm.Tick(time.Second)
	took("Tick(1s)", time.Second)
	if u := tm.Until(tm.Now().Add(time.Minute)); u != time.Minute {
		t.Errorf("Until(Now()+1m) = %v", u)
	}
	if err := w.Close(); err != ErrCloseDefault {
		t.Errorf("Close of Default() in a bubble = %v, want ErrCloseDefault", err)
	}
	w.Sync() // package time's timers: nothing to wait for
	return w
}
