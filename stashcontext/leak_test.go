package stashcontext_test

import (
	stdcontext "context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// heapAfterGC returns the heap in use once garbage is collected: three
// times, so that what the wheel's callbacks still running at the first put
// into sync.Pool leaves it too (a pool keeps what it holds for two).
func heapAfterGC() int64 {
	for range 3 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// maxRetained is how much heap a finished child may leave behind, per child.
const maxRetained = 8

// children returns how many children the leak tests make: a million, a
// tenth of that with the race detector (or -short).
func children() int {
	if raceEnabled || testing.Short() {
		return 100_000
	}
	return 1_000_000
}

// checkParentCancel checks that no finished child is left for parent's
// cancel to walk, where parent is of this package (package context's
// keep theirs out of sight: the bytes kept per child tell for those), and
// cancels it.
func checkParentCancel(t *testing.T, parent stdcontext.Context, cancel func()) {
	t.Helper()
	if n := context.ChildCount(parent); n != -1 {
		require.Zero(t, n, "children left on the parent")
	}
	start := time.Now()
	cancel()
	took := time.Since(start)
	require.True(t, isDone(parent))
	t.Logf("canceling the parent took %v", took)
}

// TestLeakCanceledChildren cancels a million WithTimeout children of one
// longer-lived WithTimeout parent, one after another: each leaves the parent,
// so the heap kept per child is at most maxRetained bytes, and canceling the
// parent afterwards takes microseconds.
func TestLeakCanceledChildren(t *testing.T) {
	n := children()
	// The children's deadlines are earlier than the parent's: each has a
	// timer of its own, not the parent's deadline (a cancel-only child).
	parent, cancelParent := context.WithTimeout(context.Background(), 2*time.Hour)
	_ = parent.Done() // arms the parent's deadline
	for range 1000 {  // warm up: the pool of timers, the parent's map
		_, cancel := context.WithTimeout(parent, time.Hour)
		cancel()
	}
	before := heapAfterGC()
	for range n {
		ctx, cancel := context.WithTimeout(parent, time.Hour)
		_ = ctx.Done() // its deadline on the wheel, as a select on it does
		cancel()
	}
	per := float64(heapAfterGC()-before) / float64(n)
	t.Logf("%d canceled children: %.1f B kept per child", n, per)
	require.LessOrEqual(t, per, float64(maxRetained))
	checkParentCancel(t, parent, cancelParent)
}

// TestLeakExpiredChildren lets a million WithTimeout children of one
// long-lived parent expire, in batches, their deadlines passing on the
// wheel: each leaves the parent, as in TestLeakCanceledChildren. The
// parent is this package's WithTimeout, or package context's WithCancel,
// to which the children are linked (see link.go).
func TestLeakExpiredChildren(t *testing.T) {
	t.Run("WithTimeout", func(t *testing.T) {
		testLeakExpiredChildren(t, func() (stdcontext.Context, func()) {
			return context.WithTimeout(context.Background(), time.Hour)
		})
	})
	t.Run("context.WithCancel", func(t *testing.T) {
		testLeakExpiredChildren(t, func() (stdcontext.Context, func()) {
			return stdcontext.WithCancel(stdcontext.Background())
		})
	})
}

func testLeakExpiredChildren(t *testing.T, newParent func() (stdcontext.Context, func())) {
	n := children()
	const batch = 10_000
	parent, cancelParent := newParent()
	_ = parent.Done()
	expire := func() {
		ctxs := make([]stdcontext.Context, batch)
		cancels := make([]stdcontext.CancelFunc, batch)
		for i := range ctxs {
			ctxs[i], cancels[i] = context.WithTimeout(parent, time.Millisecond)
			_ = ctxs[i].Done()
		}
		timeout := time.After(patience)
		for i, ctx := range ctxs {
			select {
			case <-ctx.Done():
			case <-timeout:
				t.Fatalf("%v not done after %v", ctx, patience)
			}
			require.Equal(t, context.DeadlineExceeded, ctx.Err())
			_ = cancels[i] // the cancel funcs are dropped uncalled: expiry is the end
		}
	}
	// Warm up: the pool of timers, the wheel, the parent's map, whose
	// sizes settle after a few batches. And the goroutines: the wheel runs
	// each expiry's cancel in a goroutine of its own, and the runtime keeps
	// the memory of every goroutine it ever made (for reuse), so make more
	// at once now than a batch's expiries can have running.
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 * batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
		}()
	}
	close(release)
	wg.Wait()
	for range 5 {
		expire()
	}
	time.Sleep(20 * time.Millisecond)
	before := heapAfterGC()
	for range n / batch {
		expire()
	}
	// The timers' callbacks pool their slots after the contexts are done:
	// let the last of them return.
	time.Sleep(20 * time.Millisecond)
	per := float64(heapAfterGC()-before) / float64(n)
	t.Logf("%d expired children: %.1f B kept per child", n, per)
	require.LessOrEqual(t, per, float64(maxRetained))
	checkParentCancel(t, parent, cancelParent)
}

// TestLeakEveryKind finishes children of every kind this package attaches
// to a parent of every kind it lists children on, and checks that none is
// left behind.
func TestLeakEveryKind(t *testing.T) {
	n := children() / 10
	parents := []struct {
		name string
		make func() (stdcontext.Context, func())
	}{
		{"WithTimeout", func() (stdcontext.Context, func()) {
			return context.WithTimeout(context.Background(), 2*time.Hour)
		}},
		{"WithCancel", func() (stdcontext.Context, func()) {
			return context.WithCancel(context.Background())
		}},
		{"context.WithValue(WithTimeout)", func() (stdcontext.Context, func()) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
			return stdcontext.WithValue(ctx, key("k"), 1), cancel
		}},
		{"WithValue(WithCancelCause)", func() (stdcontext.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return context.WithValue(ctx, key("k"), 1), func() { cancel(nil) }
		}},
		// Package context's, to which this package links its contexts
		// (see link.go).
		{"context.WithCancel", func() (stdcontext.Context, func()) {
			return stdcontext.WithCancel(stdcontext.Background())
		}},
		{"WithTimeout(context.WithCancel)", func() (stdcontext.Context, func()) {
			p, cancelP := stdcontext.WithCancel(stdcontext.Background())
			ctx, cancel := context.WithTimeout(p, 2*time.Hour)
			return ctx, func() { cancel(); cancelP() }
		}},
	}
	kids := []struct {
		name string
		run  func(parent stdcontext.Context)
		// armed reports a kid that arms its deadline: it takes a timer
		// from the pool, which the race detector's sync.Pool drops at
		// random, so that new timers are made, more than the race
		// build's fewer children amortize. Such kids run without -race.
		armed bool
	}{
		{"WithTimeout canceled", func(p stdcontext.Context) {
			_, cancel := context.WithTimeout(p, time.Hour)
			cancel()
		}, false},
		{"WithTimeout armed, canceled", func(p stdcontext.Context) {
			ctx, cancel := context.WithTimeout(p, time.Hour)
			_ = ctx.Done()
			cancel()
		}, true},
		{"WithTimeout, context.WithCancel of it, canceled", func(p stdcontext.Context) {
			ctx, cancel := context.WithTimeout(p, time.Hour)
			_, cancelStd := stdcontext.WithCancel(ctx)
			cancelStd()
			cancel()
		}, true},
		{"WithTimeout past", func(p stdcontext.Context) {
			_, cancel := context.WithTimeout(p, -time.Second)
			_ = cancel
		}, false},
		{"WithCancel", func(p stdcontext.Context) {
			_, cancel := context.WithCancel(p)
			cancel()
		}, false},
		{"WithCancelCause", func(p stdcontext.Context) {
			_, cancel := context.WithCancelCause(p)
			cancel(errCause)
		}, false},
		{"context.WithCancel", func(p stdcontext.Context) {
			_, cancel := stdcontext.WithCancel(p)
			cancel()
		}, false},
		{"context.AfterFunc stopped", func(p stdcontext.Context) {
			stop := stdcontext.AfterFunc(p, func() {})
			stop()
		}, false},
	}
	for _, pk := range parents {
		for _, ck := range kids {
			if pk.name == "context.WithValue(WithTimeout)" && strings.HasPrefix(ck.name, "context.") {
				// Package context attaches these with a goroutine of its
				// own (see doc.go), which leaves after the child finishes,
				// in its own time; this package lists nothing.
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", pk.name, ck.name), func(t *testing.T) {
				if ck.armed && raceEnabled {
					t.Skip("the race detector's sync.Pool drops pooled timers at random")
				}
				parent, cancelParent := pk.make()
				_ = parent.Done()
				for range 100 {
					ck.run(parent)
				}
				before := heapAfterGC()
				for range n {
					ck.run(parent)
				}
				per := float64(heapAfterGC()-before) / float64(n)
				require.LessOrEqual(t, per, float64(maxRetained), "%.1f B kept per child", per)
				checkParentCancel(t, parent, cancelParent)
			})
		}
	}
}
