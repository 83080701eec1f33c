//go:build go1.25

package stashtime

// Rule 17 of docs/semantics.md: inside a testing/synctest bubble the
// package-level timers run on the bubble's fake clock (they are package
// time's timers there), and the driver's goroutine, outside the bubble,
// never touches a channel made inside it (the runtime would die with a
// fatal error).

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

func clockMono() int64 { return clock.Mono() }

func init() {
	children.Scenarios["synctest-bubble"] = func() { synctest.Test(children.T, bubbleScenario) }
	children.Scenarios["synctest-first-use-in-init"] = func() { synctest.Test(children.T, bubbleScenario) }
	// The default wheel's first use inside a bubble: its driver goroutine
	// would be started in the bubble.
	if os.Getenv(children.Env) == "synctest-first-use-in-init" {
		// A timer used while packages initialize, before the testing
		// flags exist, must not decide once and for all that this is not
		// a test binary.
		<-After(time.Millisecond)
	}
}

// bubbleScenario runs every package-level timer inside a bubble and checks
// it against the fake clock. It returns normally only if all went well.
func bubbleScenario(t *testing.T) {
	realStart := clockMono()
	start := time.Now()
	since := func() time.Duration { return time.Since(start) }

	// Sleep an hour: instantly in real time, an hour in the bubble.
	Sleep(time.Hour)
	if got := since(); got != time.Hour {
		t.Errorf("after Sleep(1h) the bubble's clock moved %v", got)
	}

	// NewTimer and After deliver the fake deadline.
	tm := NewTimer(time.Second)
	if !tm.e.Std() {
		t.Errorf("NewTimer in a bubble is not package time's timer")
	}
	if v := <-tm.C; !v.Equal(start.Add(time.Hour + time.Second)) {
		t.Errorf("NewTimer(1s) delivered %v, want start+1h1s", v.Sub(start))
	}
	if v := <-After(2 * time.Second); !v.Equal(start.Add(time.Hour + 3*time.Second)) {
		t.Errorf("After(2s) delivered %v, want start+1h3s", v.Sub(start))
	}

	// AfterFunc runs at the fake deadline.
	var ranAt atomic.Int64
	AfterFunc(3*time.Second, func() { ranAt.Store(int64(since())) })
	time.Sleep(3 * time.Second)
	synctest.Wait()
	if got := time.Duration(ranAt.Load()); got != time.Hour+6*time.Second {
		t.Errorf("AfterFunc(3s) ran at %v, want 1h6s", got)
	}

	// Stop and Reset keep their results.
	tm = NewTimer(time.Minute)
	if !tm.Stop() {
		t.Error("Stop of a pending timer returned false")
	}
	if tm.Stop() {
		t.Error("second Stop returned true")
	}
	if tm.Reset(time.Second) {
		t.Error("Reset of a stopped timer returned true")
	}
	at := since()
	if v := <-tm.C; v.Sub(start) != at+time.Second {
		t.Errorf("Reset(1s) delivered at %v, want %v", v.Sub(start), at+time.Second)
	}
	f := AfterFunc(time.Hour, func() { t.Error("stopped AfterFunc ran") })
	if !f.Stop() {
		t.Error("Stop of a pending AfterFunc returned false")
	}

	// An expired, unreceived value is discarded by Stop (Go 1.23).
	tm = NewTimer(time.Second)
	time.Sleep(2 * time.Second)
	if !tm.Stop() {
		t.Error("Stop of an expired, unreceived timer returned false")
	}
	select {
	case <-tm.C:
		t.Error("stale value after Stop")
	default:
	}

	// NewTicker and Tick tick on the fake clock, period apart.
	tk := NewTicker(10 * time.Second)
	if !tk.e.Std() {
		t.Errorf("NewTicker in a bubble is not package time's ticker")
	}
	prev := since()
	for i := range 3 {
		<-tk.C
		if d := since() - prev; d != 10*time.Second {
			t.Errorf("tick %d came %v after the previous, want 10s", i, d)
		}
		prev = since()
	}
	tk.Reset(time.Minute)
	<-tk.C
	if d := since() - prev; d != time.Minute {
		t.Errorf("tick after Reset(1m) came %v later", d)
	}
	tk.Stop()
	time.Sleep(time.Hour)
	select {
	case <-tk.C:
		t.Error("tick after Stop")
	default:
	}
	c := Tick(time.Second)
	prev = since()
	<-c
	<-c
	if d := since() - prev; d != 2*time.Second {
		t.Errorf("two ticks of Tick(1s) took %v", d)
	}

	// All of that took no real hour.
	if real := time.Duration(clockMono() - realStart); real > 10*time.Second {
		t.Errorf("the bubble took %v of real time", real)
	}
}

// TestFidelitySynctest runs the package's timers inside a bubble. Were a
// channel made in the bubble touched by the driver, the test binary would
// die with a fatal error.
func TestFidelitySynctest(t *testing.T) {
	Default() // the driver is started outside the bubble, as it would be in a program
	before := Default().Stats()
	synctest.Test(t, bubbleScenario)
	if after := Default().Stats(); after.Fired < before.Fired {
		t.Fatal("impossible")
	}
}

// TestFidelitySynctestRenamedBinary: the bubble is still recognized in a
// test binary not named *.test whose first timer ran while packages were
// initializing (before the testing flags are registered).
func TestFidelitySynctestRenamedBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Skip(err)
	}
	renamed := filepath.Join(t.TempDir(), "fidelity-child")
	if err := os.WriteFile(renamed, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"synctest-bubble", "synctest-first-use-in-init"} {
		t.Run(name, func(t *testing.T) {
			r := children.RunBinary(t, renamed, name, time.Minute)
			if r.Code != 0 {
				s := r.Stdout + r.Stderr
				if i := strings.Index(s, "goroutine "); i > 0 && len(s) > i+2000 {
					s = s[:i+2000]
				}
				t.Fatalf("child failed: exit %d (timed out: %v)\n%s", r.Code, r.TimedOut, s)
			}
		})
	}
}
