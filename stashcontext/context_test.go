package stashcontext_test

import (
	stdcontext "context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// An api is the deadline half of package context: package context's own or
// this package's. The table cases run on both and must agree.
type api struct {
	name              string
	WithTimeout       func(stdcontext.Context, time.Duration) (stdcontext.Context, stdcontext.CancelFunc)
	WithDeadline      func(stdcontext.Context, time.Time) (stdcontext.Context, stdcontext.CancelFunc)
	WithTimeoutCause  func(stdcontext.Context, time.Duration, error) (stdcontext.Context, stdcontext.CancelFunc)
	WithDeadlineCause func(stdcontext.Context, time.Time, error) (stdcontext.Context, stdcontext.CancelFunc)
}

var (
	stdAPI   = api{"context", stdcontext.WithTimeout, stdcontext.WithDeadline, stdcontext.WithTimeoutCause, stdcontext.WithDeadlineCause}
	stashAPI = api{"stash", context.WithTimeout, context.WithDeadline, context.WithTimeoutCause, context.WithDeadlineCause}
)

// long is a timeout no test waits for.
const long = time.Hour

// patience bounds every wait for something that must happen: far beyond any
// lateness of a loaded machine, only reached when the thing never happens.
const patience = 20 * time.Second

var errCause = errors.New("the cause")

type key string

// wait waits for ctx to be done, or fails the test after patience.
func wait(t *testing.T, ctx stdcontext.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(patience):
		t.Fatalf("%v not done after %v", ctx, patience)
	}
}

// isDone reports whether ctx's Done channel is closed now.
func isDone(ctx stdcontext.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// state describes ctx for comparison between the implementations.
func state(ctx stdcontext.Context) string {
	err := ctx.Err()
	timeout := false
	if te, ok := err.(interface{ Timeout() bool }); ok {
		timeout = te.Timeout()
	}
	return fmt.Sprintf("done=%v err=%v is(Canceled)=%v is(DeadlineExceeded)=%v timeout=%v cause=%v",
		isDone(ctx), err, errors.Is(err, stdcontext.Canceled), errors.Is(err, stdcontext.DeadlineExceeded),
		timeout, stdcontext.Cause(ctx))
}

// The cases: each returns a transcript of what it observed, which must be
// the same for both implementations.
var cases = []struct {
	name string
	run  func(t *testing.T, a api) []string
}{
	{"cancel before deadline", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		before := state(ctx)
		cancel()
		after := state(ctx)
		cancel()
		return []string{before, after, state(ctx)}
	}},
	{"deadline expires", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), 5*time.Millisecond)
		defer cancel()
		wait(t, ctx)
		s := state(ctx)
		cancel()
		return []string{s, state(ctx)}
	}},
	{"deadline expires with cause", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeoutCause(stdcontext.Background(), time.Millisecond, errCause)
		defer cancel()
		wait(t, ctx)
		return []string{state(ctx)}
	}},
	{"deadline cause not set by cancel", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithDeadlineCause(stdcontext.Background(), time.Now().Add(long), errCause)
		cancel()
		return []string{state(ctx)}
	}},
	{"deadline in the past", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithDeadlineCause(stdcontext.Background(), time.Now().Add(-time.Second), errCause)
		s := state(ctx)
		cancel()
		return []string{s, state(ctx)}
	}},
	{"zero timeout", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), 0)
		defer cancel()
		return []string{state(ctx)}
	}},
	{"deadline reported", func(t *testing.T, a api) []string {
		d := time.Now().Add(long)
		ctx, cancel := a.WithDeadline(stdcontext.Background(), d)
		defer cancel()
		got, ok := ctx.Deadline()
		return []string{fmt.Sprint(got.Equal(d), ok)}
	}},
	{"timeout's deadline", func(t *testing.T, a api) []string {
		before := time.Now()
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		defer cancel()
		got, ok := ctx.Deadline()
		after := time.Now()
		return []string{fmt.Sprint(!got.Before(before.Add(long)), !got.After(after.Add(long)), ok)}
	}},
	{"parent's earlier deadline", func(t *testing.T, a api) []string {
		pd := time.Now().Add(time.Minute)
		parent, pcancel := stdcontext.WithDeadline(stdcontext.Background(), pd)
		defer pcancel()
		ctx, cancel := a.WithTimeout(parent, long)
		defer cancel()
		got, _ := ctx.Deadline()
		pcancel()
		return []string{fmt.Sprint(got.Equal(pd)), fmt.Sprint(strings.HasSuffix(fmt.Sprint(ctx), "WithCancel")), state(ctx)}
	}},
	{"later parent deadline", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeout(stdcontext.Background(), long)
		defer pcancel()
		d := time.Now().Add(time.Minute)
		ctx, cancel := a.WithDeadline(parent, d)
		defer cancel()
		got, _ := ctx.Deadline()
		return []string{fmt.Sprint(got.Equal(d))}
	}},
	{"std parent canceled", func(t *testing.T, a api) []string {
		parent, pcancel := stdcontext.WithCancelCause(stdcontext.Background())
		ctx, cancel := a.WithTimeout(parent, long)
		defer cancel()
		s := state(ctx)
		pcancel(errCause)
		// Err and Cause are right at once; Done is closed soon after.
		s2 := fmt.Sprint(ctx.Err(), stdcontext.Cause(ctx))
		wait(t, ctx)
		return []string{s, s2, state(ctx)}
	}},
	{"std parent canceled already", func(t *testing.T, a api) []string {
		parent, pcancel := stdcontext.WithCancelCause(stdcontext.Background())
		pcancel(errCause)
		ctx, cancel := a.WithTimeout(parent, long)
		defer cancel()
		return []string{state(ctx)}
	}},
	{"own kind of parent canceled", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeout(stdcontext.Background(), long)
		ctx, cancel := a.WithTimeout(parent, long)
		defer cancel()
		pcancel()
		return []string{state(ctx)}
	}},
	{"own kind of parent expires", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeoutCause(stdcontext.Background(), 2*time.Millisecond, errCause)
		defer pcancel()
		ctx, cancel := a.WithTimeout(parent, long)
		defer cancel()
		wait(t, parent)
		wait(t, ctx)
		return []string{state(parent), state(ctx)}
	}},
	{"own kind of parent through a value", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeout(stdcontext.Background(), long)
		ctx, cancel := a.WithTimeout(stdcontext.WithValue(parent, key("k"), "v"), long/2)
		defer cancel()
		pcancel()
		return []string{state(ctx), fmt.Sprint(ctx.Value(key("k")))}
	}},
	{"own kind of parent with earlier deadline, through a value", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeout(stdcontext.Background(), long)
		ctx, cancel := a.WithTimeout(stdcontext.WithValue(parent, key("k"), "v"), long)
		defer cancel()
		dp, _ := parent.Deadline()
		d, _ := ctx.Deadline()
		pcancel()
		return []string{state(ctx), fmt.Sprint(ctx.Value(key("k")), dp.Equal(d))}
	}},
	{"std children", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		c1, cancel1 := stdcontext.WithCancel(ctx)
		defer cancel1()
		c2, cancel2 := stdcontext.WithCancelCause(stdcontext.WithValue(ctx, key("k"), "v"))
		defer cancel2(nil)
		c3, cancel3 := stdcontext.WithTimeout(ctx, long)
		defer cancel3()
		c4 := stdcontext.WithoutCancel(ctx)
		s := []string{state(c1), state(c2), state(c3)}
		cancel()
		wait(t, c2) // through a value context: a goroutine of package context
		return append(s, state(c1), state(c2), state(c3), state(c4), fmt.Sprint(c2.Value(key("k"))))
	}},
	{"std children expire", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeoutCause(stdcontext.Background(), 2*time.Millisecond, errCause)
		defer cancel()
		c1, cancel1 := stdcontext.WithCancel(ctx)
		defer cancel1()
		c2, cancel2 := stdcontext.WithCancel(stdcontext.WithValue(ctx, key("k"), "v"))
		defer cancel2()
		wait(t, ctx)
		wait(t, c1)
		wait(t, c2)
		return []string{state(ctx), state(c1), state(c2)}
	}},
	{"std child canceled first", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		c1, cancel1 := stdcontext.WithCancel(ctx)
		cancel1()
		s := []string{state(ctx), state(c1)}
		cancel()
		return append(s, state(c1))
	}},
	{"std child of canceled", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeoutCause(stdcontext.Background(), time.Millisecond, errCause)
		defer cancel()
		wait(t, ctx)
		c1, cancel1 := stdcontext.WithCancel(ctx)
		defer cancel1()
		return []string{state(c1)}
	}},
	{"AfterFunc", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		ran := make(chan struct{})
		stop := stdcontext.AfterFunc(ctx, func() { close(ran) })
		cancel()
		select {
		case <-ran:
		case <-time.After(patience):
			t.Fatal("AfterFunc's f did not run")
		}
		return []string{fmt.Sprint(stop())}
	}},
	{"AfterFunc stopped", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		stop := stdcontext.AfterFunc(ctx, func() { t.Error("stopped AfterFunc ran") })
		first, second := stop(), stop()
		cancel()
		return []string{fmt.Sprint(first, second)}
	}},
	{"AfterFunc on canceled", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.Background(), long)
		cancel()
		ran := make(chan struct{})
		stop := stdcontext.AfterFunc(ctx, func() { close(ran) })
		<-ran
		return []string{fmt.Sprint(stop())}
	}},
	{"WithoutCancel", func(t *testing.T, a api) []string {
		parent, pcancel := a.WithTimeout(stdcontext.WithValue(stdcontext.Background(), key("k"), "v"), time.Millisecond)
		defer pcancel()
		ctx := stdcontext.WithoutCancel(parent)
		wait(t, parent)
		_, hasDeadline := ctx.Deadline()
		return []string{fmt.Sprint(ctx.Done() == nil, ctx.Err(), stdcontext.Cause(ctx), hasDeadline, ctx.Value(key("k")))}
	}},
	{"Value", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithTimeout(stdcontext.WithValue(stdcontext.Background(), key("k"), "v"), long)
		cancel()
		return []string{fmt.Sprint(ctx.Value(key("k")), ctx.Value(key("none")), ctx.Value(nil))}
	}},
	{"String", func(t *testing.T, a api) []string {
		ctx, cancel := a.WithDeadline(stdcontext.Background(), time.Date(2100, 1, 2, 3, 4, 5, 0, time.UTC))
		defer cancel()
		s := fmt.Sprint(ctx)
		child, _ := a.WithDeadline(stdcontext.WithValue(ctx, key("k"), "v"), time.Date(2099, 1, 2, 3, 4, 5, 0, time.UTC))
		cs := fmt.Sprint(child)
		return []string{s[:strings.Index(s, "[")], cs[:strings.Index(cs, "[")],
			fmt.Sprint(strings.HasSuffix(s, "])"))}
	}},
	{"nil parent", func(t *testing.T, a api) []string {
		var nilParent stdcontext.Context
		var out []string
		for _, f := range []func(){
			func() { a.WithTimeout(nilParent, long) },
			func() { a.WithDeadline(nilParent, time.Now()) },
			func() { a.WithTimeoutCause(nilParent, long, errCause) },
			func() { a.WithDeadlineCause(nilParent, time.Now(), errCause) },
		} {
			out = append(out, fmt.Sprint(panicValue(f)))
		}
		return out
	}},
}

func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestSemantics runs every case on package context and on this package and
// compares what they saw.
func TestSemantics(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := c.run(t, stdAPI)
			got := c.run(t, stashAPI)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("stash:\n\t%s\ncontext:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// TestOwnType checks that the cases above see this package's context, not
// a context of package context.
func TestOwnType(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), long)
	defer cancel()
	if s := fmt.Sprintf("%T", ctx); strings.HasPrefix(s, "*context.") {
		t.Fatalf("WithTimeout returned a %s", s)
	}
}

// TestNoGoroutinePerChild attaches many children of every kind to contexts
// of this package, and these to this package's WithCancel, and checks that
// no goroutine waits for each.
func TestNoGoroutinePerChild(t *testing.T) {
	const n = 1000
	runtime.GC()
	before := runtime.NumGoroutine()
	root, cancelRoot := context.WithCancel(context.Background())
	var cancels []func()
	for range n {
		ctx, cancel := context.WithTimeout(root, long) // under this package's WithCancel
		cancels = append(cancels, cancel)
		c1, cancel1 := stdcontext.WithCancel(ctx) // package context's child
		cancels = append(cancels, cancel1)
		_, cancel2 := context.WithTimeout(ctx, long) // ours
		cancels = append(cancels, cancel2)
		_, cancel3 := context.WithTimeout(stdcontext.WithValue(ctx, key("k"), 1), long/2) // ours, through a value
		cancels = append(cancels, cancel3)
		_, cancel5 := context.WithTimeout(stdcontext.WithValue(ctx, key("k"), 1), long) // later: cancel-only
		cancels = append(cancels, cancel5)
		_, cancel4 := context.WithTimeout(c1, long) // ours under package context's under ours
		cancels = append(cancels, cancel4)
		stop := stdcontext.AfterFunc(ctx, func() {})
		cancels = append(cancels, func() { stop() })
	}
	if got := runtime.NumGoroutine() - before; got > 10 {
		t.Errorf("%d goroutines more for %d contexts with children", got, n)
	}
	for _, c := range cancels {
		c()
	}
	cancelRoot()
}

// TestExpiryNotEarly checks that a context is done no earlier than its
// deadline.
func TestExpiryNotEarly(t *testing.T) {
	for _, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond} {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		wait(t, ctx)
		if now := time.Now(); now.Sub(start) < d {
			t.Errorf("timeout %v: done after %v", d, now.Sub(start))
		}
		dl, _ := ctx.Deadline()
		if time.Now().Before(dl) {
			t.Errorf("timeout %v: done before its deadline", d)
		}
		cancel()
	}
}

func TestNilParentMessage(t *testing.T) {
	var nilParent stdcontext.Context
	v := panicValue(func() { context.WithTimeout(nilParent, long) })
	if v != "cannot create context from nil parent" {
		t.Errorf("panic %v", v)
	}
}

// TestCancelReleasesTimer checks that cancel stops the deadline's timer at
// once: the wheel's count of armed timers goes back down.
func TestCancelReleasesTimer(t *testing.T) {
	const n = 1000
	w := stashtime.Default()
	before := w.Stats().Live
	var cancels []stdcontext.CancelFunc
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), long)
		_ = ctx.Done() // puts the deadline on the wheel (see ensureArmed)
		cancels = append(cancels, cancel)
	}
	if live := w.Stats().Live - before; live < n {
		t.Errorf("%d contexts pending: %d more timers armed", n, live)
	}
	for _, c := range cancels {
		c()
	}
	// Slack for timers that other tests of this package arm meanwhile.
	if live := w.Stats().Live - before; live > n/10 {
		t.Errorf("%d contexts canceled: still %d more timers armed", n, live)
	}
}

// TestLazyArming checks that a deadline goes on the wheel only once
// something could see it pass, and that one that passed unseen is seen at
// once.
func TestLazyArming(t *testing.T) {
	w := stashtime.Default()
	before := w.Stats().Live
	var cancels []stdcontext.CancelFunc
	for range 1000 {
		ctx, cancel := context.WithTimeout(context.Background(), long)
		ctx.Deadline()
		_ = ctx.Value(key("k"))
		cancels = append(cancels, cancel)
	}
	if live := w.Stats().Live - before; live > 100 {
		t.Errorf("%d timers armed for contexts nobody looked at", live)
	}
	for _, c := range cancels {
		c()
	}

	for _, look := range []func(stdcontext.Context){
		func(ctx stdcontext.Context) { <-ctx.Done() },
		func(ctx stdcontext.Context) { _ = ctx.Err() },
		func(ctx stdcontext.Context) { _ = stdcontext.Cause(ctx) },
	} {
		ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, errCause)
		dl, _ := ctx.Deadline()
		for time.Now().Before(dl) {
			time.Sleep(time.Millisecond)
		}
		look(ctx)
		if ctx.Err() != context.DeadlineExceeded || !isDone(ctx) || stdcontext.Cause(ctx) != errCause {
			t.Errorf("deadline passed unseen: %s", state(ctx))
		}
		cancel()
	}
}

// TestCauseFirstLook asks context.Cause before anything else has looked at
// the context: the cancellation of a parent of package context, and a deadline that has
// passed, must show in that first answer. (Releases before Go 1.26 ask the
// context's Value before its Err.)
func TestCauseFirstLook(t *testing.T) {
	errParent := errors.New("parent's cause")
	parent, cancelParent := stdcontext.WithCancelCause(stdcontext.Background())
	ctx, cancel := context.WithTimeout(parent, time.Hour)
	defer cancel()
	cancelParent(errParent)
	if got := stdcontext.Cause(ctx); got != errParent {
		t.Errorf("Cause right after the parent's cancel = %v, want %v", got, errParent)
	}

	errLate := errors.New("late")
	ctx2, cancel2 := context.WithTimeoutCause(stdcontext.Background(), time.Millisecond, errLate)
	defer cancel2()
	time.Sleep(5 * time.Millisecond) // the deadline passes while nobody looks
	if got := stdcontext.Cause(ctx2); got != errLate {
		t.Errorf("first Cause after the deadline = %v, want %v", got, errLate)
	}
}

// TestAttachWhileParentCancels makes contexts under a parent of package context while
// another goroutine cancels it: each must end with the parent's cause, which
// a child attached as the cancel ran once lost.
func TestAttachWhileParentCancels(t *testing.T) {
	errParent := errors.New("parent's cause")
	for range 2000 {
		parent, cancelParent := stdcontext.WithCancelCause(stdcontext.Background())
		go cancelParent(errParent)
		ctx, cancel := context.WithTimeout(parent, time.Hour)
		<-ctx.Done()
		if got := stdcontext.Cause(ctx); got != errParent {
			cancel()
			t.Fatalf("Cause = %v, want the parent's %v", got, errParent)
		}
		cancel()
	}
}

// TestPooledTimers checks the timers that canceled contexts leave armed
// for the next (see slot.go): a context that takes one armed for an earlier
// deadline is done no earlier than its own, one that takes one armed for a
// later deadline is done no later than a timer armed for it would make it,
// and the timers left armed for no context fire and leave the wheel.
func TestPooledTimers(t *testing.T) {
	const n = 200
	w := stashtime.Default()
	before := w.Stats().Live
	leave := func(d time.Duration) (dl time.Time) {
		dl = time.Now().Add(d)
		var cancels []stdcontext.CancelFunc
		for range n {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			_ = ctx.Done()
			cancels = append(cancels, cancel)
		}
		for _, c := range cancels {
			c()
		}
		return dl
	}
	// check makes n contexts with timeout d, and requires each to be done
	// no earlier than its deadline and before by.
	check := func(d time.Duration, by time.Time) {
		t.Helper()
		type result struct{ early, late time.Duration }
		results := make(chan result, n)
		for range n {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			dl, _ := ctx.Deadline()
			go func() {
				defer cancel()
				var now time.Time
				select {
				case <-ctx.Done():
					now = time.Now()
				case <-time.After(patience):
					now = time.Now()
				}
				results <- result{early: dl.Sub(now), late: now.Sub(by)}
			}()
		}
		for range n {
			r := <-results
			require.LessOrEqual(t, r.early, time.Duration(0), "timeout %v: done before its deadline", d)
			require.Less(t, r.late, time.Duration(0), "timeout %v: done too late", d)
		}
	}
	leave(20 * time.Millisecond)
	check(100*time.Millisecond, time.Now().Add(patience)) // timers armed for earlier deadlines fire first
	by := leave(1900 * time.Millisecond)
	check(10*time.Millisecond, by) // timers armed for later deadlines are re-armed
	// Left armed for nobody, the near timers fire within lazyWithin (2s).
	deadline := time.Now().Add(patience)
	for w.Stats().Live-before > n/10 {
		require.True(t, time.Now().Before(deadline), "%d timers still armed", w.Stats().Live-before)
		time.Sleep(10 * time.Millisecond)
	}
}
