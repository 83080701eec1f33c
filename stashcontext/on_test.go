package stashcontext_test

import (
	stdcontext "context"
	"errors"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
	context "github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// newManualWheel returns a wheel on a manual clock, closed when the test
// ends.
func newManualWheel(t *testing.T) (*stashtime.Wheel, *stashtime.ManualClock) {
	t.Helper()
	clk := stashtime.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w, clk
}

// done waits for ctx, failing after a real-time bound generous for a
// loaded machine.
func done(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("context not done after 10s of real time")
	}
}

func TestOnNilAndDefaultArePackageFunctions(t *testing.T) {
	require.Equal(t, context.Deadlines{}, context.On(nil))
	require.Equal(t, context.Deadlines{}, context.On(stashtime.Default()))
	require.Equal(t, stashtime.Timers(stashtime.Default()), context.On(nil).Timers())
	ctx, cancel := context.On(nil).WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	done(t, ctx)
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
}

// A deadline on a manual wheel passes when the wheel's clock reaches it,
// never before; its cause is reported.
func TestOnDeadlineFollowsWheelClock(t *testing.T) {
	w, clk := newManualWheel(t)
	errSlow := errors.New("slow")
	before := context.Stats()
	ctx, cancel := context.On(w).WithDeadlineCause(context.Background(), w.Now().Add(time.Second), errSlow)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	require.Equal(t, time.Second, w.Until(dl))
	require.NoError(t, ctx.Err()) // arms the timer
	require.EqualValues(t, 1, w.Stats().Live)
	require.Contains(t, ctx.(interface{ String() string }).String(), "[1s]")

	clk.Advance(time.Second - 1)
	w.Sync()
	require.NoError(t, ctx.Err())
	clk.Advance(1)
	w.Sync()
	done(t, ctx)
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	require.ErrorIs(t, context.Cause(ctx), errSlow)

	after := context.Stats()
	require.GreaterOrEqual(t, after.Armed-before.Armed, int64(1))
	require.GreaterOrEqual(t, after.Fired-before.Fired, int64(1))
	require.GreaterOrEqual(t, after.Expired-before.Expired, int64(1))
}

// Cancel stops a wheel's timer: it is not pooled, so BlockUntil and
// Stats().Live count only the deadlines still watched.
func TestOnCancelStopsTimer(t *testing.T) {
	w, _ := newManualWheel(t)
	ctx, cancel := context.On(w).WithTimeout(context.Background(), time.Hour)
	require.NoError(t, ctx.Err()) // arms the timer
	w.BlockUntil(1)
	cancel()
	require.EqualValues(t, 0, w.Stats().Live)
	require.ErrorIs(t, ctx.Err(), context.Canceled)
}

func TestOnDeadlinePassedIsDoneAtOnce(t *testing.T) {
	w, _ := newManualWheel(t)
	ctx, cancel := context.On(w).WithDeadline(context.Background(), w.Now())
	defer cancel()
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	// The real clock reads decades later than this wheel's start; a
	// deadline an hour past it is still ahead on the wheel.
	ctx2, cancel2 := context.On(w).WithDeadline(context.Background(), w.Now().Add(time.Hour))
	defer cancel2()
	require.NoError(t, ctx2.Err())
}

// Children of either package made from a wheel's context end with it,
// and a child on the wheel ends at its own, earlier deadline.
func TestOnChildren(t *testing.T) {
	w, clk := newManualWheel(t)
	on := context.On(w)
	parent, cancel := on.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	child, cancelChild := on.WithTimeout(parent, time.Minute)
	defer cancelChild()
	std, cancelStd := stdcontext.WithCancel(parent)
	defer cancelStd()
	same, cancelSame := on.WithTimeout(parent, 2*time.Hour) // the parent's is earlier
	defer cancelSame()
	require.NoError(t, same.Err())

	clk.Advance(time.Minute)
	w.Sync()
	done(t, child)
	require.ErrorIs(t, child.Err(), context.DeadlineExceeded)
	require.NoError(t, parent.Err())
	require.NoError(t, std.Err())

	clk.Advance(time.Hour)
	w.Sync()
	done(t, parent)
	done(t, std)
	require.ErrorIs(t, std.Err(), context.DeadlineExceeded)
	require.ErrorIs(t, same.Err(), context.DeadlineExceeded)
}

// Under a parent of package context, a wheel's context is attached with
// context.AfterFunc: the parent's cancel reaches it, with its cause, and
// a context that ends first detaches.
func TestOnUnderStdParent(t *testing.T) {
	w, clk := newManualWheel(t)
	parent, cancelParent := stdcontext.WithCancelCause(stdcontext.Background())
	ctx, cancel := context.On(w).WithTimeout(parent, time.Minute)
	defer cancel()
	errGone := errors.New("gone")
	cancelParent(errGone)
	done(t, ctx)
	require.ErrorIs(t, ctx.Err(), context.Canceled)
	require.ErrorIs(t, context.Cause(ctx), errGone)

	parent2, cancelParent2 := stdcontext.WithCancel(stdcontext.Background())
	defer cancelParent2()
	ctx2, cancel2 := context.On(w).WithTimeout(parent2, time.Minute)
	defer cancel2()
	require.NoError(t, ctx2.Err())
	clk.Advance(time.Minute)
	w.Sync()
	done(t, ctx2)
	require.ErrorIs(t, ctx2.Err(), context.DeadlineExceeded)
	require.NoError(t, parent2.Err())
}

// A context on the process-wide wheel counts its timer as armed or
// reused, and pooled once canceled.
func TestStatsCountPooling(t *testing.T) {
	before := context.Stats()
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ctx.Done()
		cancel()
	}
	after := context.Stats()
	require.GreaterOrEqual(t, (after.Armed-before.Armed)+(after.Reused-before.Reused), int64(10))
	require.GreaterOrEqual(t, after.Pooled-before.Pooled, int64(10))
}

// TestExampleOnWaitsNoRealTime runs ExampleOn, whose timeout is an hour
// on its ManualClock, and checks that it takes under a second of real
// time: the best of three runs, so that a loaded machine's scheduling
// delays (under the race detector too) do not fail it, while a real wait
// for the timeout would show in all three.
func TestExampleOnWaitsNoRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	best, err := measure.QuietBest(3, ExampleOn)
	if err != nil {
		t.Fatal(err)
	}
	if best > time.Second {
		t.Fatalf("ExampleOn took %v of real time at best, want under 1s", best)
	}
}

// countingTimers is a Timers that is not a *stashtime.Wheel: a wrapper
// that counts the AfterFunc timers it starts on its wheel.
type countingTimers struct {
	*stashtime.Wheel
	afterFuncs int
}

func (c *countingTimers) AfterFunc(d time.Duration, f func()) *stashtime.Timer {
	c.afterFuncs++
	return c.Wheel.AfterFunc(d, f)
}

// On takes any Timers, as the code under test does: a wrapper of a
// wheel's gets its deadlines on the wheel, through the wrapper, and a nil
// *Wheel is the process-wide wheel as nil is.
func TestOnTimers(t *testing.T) {
	require.Equal(t, context.Deadlines{}, context.On((*stashtime.Wheel)(nil)))
	w, clk := newManualWheel(t)
	ct := &countingTimers{Wheel: w}
	on := context.On(ct)
	require.Equal(t, stashtime.Timers(ct), on.Timers())
	ctx, cancel := on.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	require.Equal(t, clk.Current().Add(time.Minute), dl)
	done := ctx.Done()
	require.Equal(t, 1, ct.afterFuncs)
	clk.Advance(time.Minute - 1)
	w.Settle()
	require.NoError(t, ctx.Err())
	clk.Advance(1)
	w.Settle()
	select {
	case <-done:
	default:
		t.Fatal("not done once the wrapped wheel's clock read the deadline")
	}
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
}
