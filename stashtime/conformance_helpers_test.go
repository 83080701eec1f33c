package stashtime_test

// Shared helpers of the conformance tests (conformance_*_test.go,
// timer_test.go, ticker_test.go) and the stress tests (stress_test.go). The
// conformance tests check the rules of docs/semantics.md against this
// package's public API only; time matters in most of them, so they drive a
// Wheel on a ManualClock, where a timer fires only when the test advances
// the clock and calls Sync.

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	stdtime "time"

	"go.uber.org/goleak"

	"github.com/stashgo/stash/stashtime"
)

// epoch is the instant a test wheel's ManualClock reads 0 at. It is not the
// clock package's default epoch, so that a value computed from the wrong
// epoch shows.
var epoch = stdtime.Date(2031, 7, 9, 10, 11, 12, 0, stdtime.UTC)

// bucketNs is the bucket width of the default store geometry: 2^20 ns, about
// 1.05 ms. Timers whose deadlines lie in one bucket are kept in insertion
// order by the store; the driver must still fire them in deadline order.
const bucketNs = stdtime.Duration(1 << 20)

// tinyLevels is a store geometry with a span of 2^26 ns (about 67 ms) in
// buckets of 2^20 ns: timers of a few hundred ms already exercise the
// overflow area and many revolutions.
func tinyLevels() []stashtime.Level {
	return []stashtime.Level{
		{Div: 1 << 23, Mod: 8, Chunk: 8},
		{Div: 1 << 20, Mod: 8, Chunk: 8},
	}
}

const tinySpan = stdtime.Duration(1 << 26)

// checkLeaks makes the test fail if it leaves goroutines behind. The
// process-wide wheel's driver, and whatever other tests left running, are
// ignored: they exist before the snapshot.
func checkLeaks(t testing.TB) {
	t.Helper()
	stashtime.Default() // start its driver before the snapshot
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// A manualWheel is a Wheel on a ManualClock, closed when the test ends.
type manualWheel struct {
	*stashtime.Wheel
	clk *stashtime.ManualClock
	t   testing.TB
}

// newTestWheel starts a wheel on a fresh ManualClock reading 0 (= epoch),
// checks for goroutine leaks, and closes the wheel at the end of the test.
// (Package stashtime's own tests use newManualWheel in helpers_test.go,
// which returns the Wheel and its clock bare and checks no leaks.)
func newTestWheel(t testing.TB, opts stashtime.Options) *manualWheel {
	t.Helper()
	checkLeaks(t)
	clk := stashtime.NewManualClock(epoch)
	opts.Clock = clk
	w, err := stashtime.NewWheel(opts)
	if err != nil {
		t.Fatalf("NewWheel: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &manualWheel{Wheel: w, clk: clk, t: t}
}

// advance moves the clock forward by d and waits until everything due has
// fired.
func (m *manualWheel) advance(d stdtime.Duration) {
	m.clk.Advance(d)
	m.Sync()
}

// keepAdvancing advances the clock by step() (and Syncs) over and over, with
// a real-time pause between steps, on its own goroutine, until the returned
// stop is called; stop returns once the goroutine has.
func (m *manualWheel) keepAdvancing(step func() stdtime.Duration, pause stdtime.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			m.advance(step())
			if pause > 0 {
				stdtime.Sleep(pause)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// elapsed is the clock's reading as a duration since epoch.
func (m *manualWheel) elapsed() stdtime.Duration { return stdtime.Duration(m.clk.Now()) }

// at is the Time that the reading off stands for.
func at(off stdtime.Duration) stdtime.Time { return epoch.Add(off) }

// tryRecv receives from c without blocking.
func tryRecv(c <-chan stdtime.Time) (stdtime.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return stdtime.Time{}, false
	}
}

// mustRecv receives from c without blocking and checks the value is want.
func mustRecv(t testing.TB, c <-chan stdtime.Time, want stdtime.Time, what string) {
	t.Helper()
	v, ok := tryRecv(c)
	if !ok {
		t.Fatalf("%s: no value on C, want %v", what, want)
	}
	if !v.Equal(want) {
		t.Fatalf("%s: received %v (%+v after epoch), want %v (%+v after epoch)",
			what, v, v.Sub(epoch), want, want.Sub(epoch))
	}
}

// mustNotRecv checks that c holds no value.
func mustNotRecv(t testing.TB, c <-chan stdtime.Time, what string) {
	t.Helper()
	if v, ok := tryRecv(c); ok {
		t.Fatalf("%s: unexpected value %v (%v after epoch)", what, v, v.Sub(epoch))
	}
}

// waitChan waits for c to be closed or to deliver, failing after a
// generous real-time bound (the callbacks of AfterFunc run on their own
// goroutines, started by Sync but not necessarily run yet).
func waitChan[T any](t testing.TB, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-stdtime.After(10 * stdtime.Second):
		t.Fatalf("%s: timed out after 10s", what)
		panic("unreachable")
	}
}

// mustPanic calls f and returns what it panicked with, failing if it did not
// panic.
func mustPanic(t testing.TB, what string, f func()) (v any) {
	t.Helper()
	panicked := true
	func() {
		defer func() { v = recover() }()
		f()
		panicked = false
	}()
	if !panicked {
		t.Fatalf("%s: did not panic", what)
	}
	return v
}

// testRand returns a seeded generator and logs the seed; STASH_SEED=n
// replays a failure.
func testRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(stdtime.Now().UnixNano())
	if s := os.Getenv("STASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STASH_SEED: %v", err)
		}
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with STASH_SEED=%d", seed)
		}
	})
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// heavy scales an iteration count down under the race detector and -short.
func heavy(n int) int {
	if stashtime.RaceEnabled {
		n /= 4
	}
	if testing.Short() {
		n /= 4
	}
	return max(n, 1)
}
