package stashcontext_test

// A cancel that finds its context canceled already, by an expiry or a cancel
// still running in another goroutine, returns once that one is over, as
// package context's waits on the context's lock: then package context's
// children of the context are done too.

import (
	stdcontext "context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// A hookCtx wraps a context of this package with an AfterFunc method of
// its own, as other code may: package context attaches its children to it
// through that, with a function that reads the wrapper's Err as it
// cancels the child. The first Err that finds the context canceled runs
// onErr there; the first Value runs onValue, if set (package context asks
// it before it calls AfterFunc).
type hookCtx struct {
	stdcontext.Context
	errOnce, valueOnce sync.Once
	onErr, onValue     func()
}

func (w *hookCtx) Err() error {
	err := w.Context.Err()
	if err != nil {
		w.errOnce.Do(w.onErr)
	}
	return err
}

func (w *hookCtx) Value(key any) any {
	if w.onValue != nil {
		w.valueOnce.Do(w.onValue)
	}
	return w.Context.Value(key)
}

func (w *hookCtx) AfterFunc(f func()) func() bool {
	return w.Context.(interface{ AfterFunc(func()) func() bool }).AfterFunc(f)
}

// A holder holds a cancel of package context's child of a context of this
// package in the child's parent's Err (see hookCtx) until released.
type holder struct {
	entered, release chan struct{}
	once             sync.Once
}

func newHolder(t *testing.T) *holder {
	h := &holder{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(h.let)
	return h
}

func (h *holder) hold() { close(h.entered); <-h.release }
func (h *holder) let()  { h.once.Do(func() { close(h.release) }) }

// waitHeld waits for h to hold the cancel.
func (h *holder) waitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-h.entered:
	case <-time.After(patience):
		t.Fatalf("no cancel held after %v", patience)
	}
}

// checkSecondWaits runs second, a cancel of c or of an ancestor, while h
// holds the cancel of a child of c: second must not return before h lets
// go, which it does once second waits on c.
func checkSecondWaits(t *testing.T, c stdcontext.Context, h *holder, second func()) {
	t.Helper()
	h.waitHeld(t)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		second()
	}()
	giveUp := time.Now().Add(patience)
waiting:
	for !context.CancelWaits(c) {
		select {
		case <-returned:
			break waiting
		default:
		}
		if time.Now().After(giveUp) {
			t.Fatalf("the second cancel neither returned nor waited after %v", patience)
		}
		runtime.Gosched()
	}
	select {
	case <-returned:
		t.Fatal("the second cancel returned while a child's cancel was held")
	default:
	}
	h.let()
	<-returned
}

// TestSecondCancelWaits holds the first cancel of c (its cancel, or its
// expiry) among its children, before package context's child g of c is
// canceled, and cancels c again, or its parent: that cancel returns only
// once g is done, with c's first error and cause.
func TestSecondCancelWaits(t *testing.T) {
	errFirst, errSecond := errors.New("first"), errors.New("second")
	for _, expire := range []bool{false, true} {
		for _, second := range []string{"cancel", "parent"} {
			t.Run(fmt.Sprintf("expire=%v/second=%s", expire, second), func(t *testing.T) {
				parent, cancelParent := context.WithCancelCause(context.Background())
				defer cancelParent(nil)
				var c stdcontext.Context
				var cancel func(error)
				wantErr := context.Canceled
				if expire {
					var cancelT stdcontext.CancelFunc
					c, cancelT = context.WithTimeoutCause(parent, time.Millisecond, errFirst)
					cancel = func(error) { cancelT() }
					wantErr = context.DeadlineExceeded
				} else {
					c, cancel = context.WithCancelCause(parent)
				}
				defer cancel(nil)

				// c's cancel cancels c2, a child of this package, before
				// g: c2's cancel runs package context's function for g1,
				// which h holds.
				c2, cancel2 := context.WithCancel(c)
				defer cancel2()
				h := newHolder(t)
				g1, cancelG1 := stdcontext.WithCancel(&hookCtx{Context: c2, onErr: h.hold})
				defer cancelG1()
				g, cancelG := stdcontext.WithCancel(c)
				defer cancelG()

				if !expire {
					go cancel(errFirst)
				}
				h.waitHeld(t)
				require.False(t, isDone(g), "g done while c's cancel was held")
				checkSecondWaits(t, c, h, func() {
					if second == "parent" {
						cancelParent(errSecond)
					} else {
						cancel(errSecond)
					}
				})
				for name, ctx := range map[string]stdcontext.Context{"g": g, "g1": g1, "c2": c2} {
					require.True(t, isDone(ctx), "%s not done when the second cancel returned", name)
					require.Equal(t, wantErr, ctx.Err(), name)
					require.Equal(t, errFirst, context.Cause(ctx), name)
				}
			})
		}
	}
}

// TestSecondCancelWaitsLateChild cancels c while package context attaches
// its child g to c: g's cancel runs in a goroutine (package context holds
// g's lock while it attaches g), which a later cancel of c waits for, as
// package context's waits for a child it cancels as it attaches it.
func TestSecondCancelWaitsLateChild(t *testing.T) {
	errFirst, errSecond := errors.New("first"), errors.New("second")
	c, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	h := newHolder(t)
	w := &hookCtx{Context: c, onErr: h.hold, onValue: func() { cancel(errFirst) }}
	g, cancelG := stdcontext.WithCancel(w)
	defer cancelG()
	checkSecondWaits(t, c, h, func() { cancel(errSecond) })
	require.True(t, isDone(g), "g not done when the second cancel returned")
	require.Equal(t, context.Canceled, g.Err())
	require.Equal(t, errFirst, context.Cause(g))
}

// TestSecondCancelRace cancels a context from two goroutines at once, or it
// and its parent, over and over: whichever cancel returns, package
// context's children of the context are done then, with its error and
// cause, in both implementations.
func TestSecondCancelRace(t *testing.T) {
	n := 20_000
	if testing.Short() || raceEnabled {
		n = 2_000
	}
	for _, im := range orderImpls {
		for _, second := range []string{"cancel", "parent"} {
			t.Run(im.name+"/second="+second, func(t *testing.T) {
				var notDone int
				for range n {
					parent, cancelParent := im.withCancelCause(stdcontext.Background())
					c, cancel := im.withCancelCause(parent)
					var gs [4]stdcontext.Context
					var cancelGs [4]stdcontext.CancelFunc
					for i := range gs {
						gs[i], cancelGs[i] = stdcontext.WithCancel(c)
					}
					start, done := make(chan struct{}), make(chan struct{})
					go func() {
						<-start
						cancel(errCause)
						close(done)
					}()
					close(start)
					if second == "parent" {
						cancelParent(errCause)
					} else {
						cancel(errCause)
					}
					for _, g := range gs {
						if !isDone(g) {
							notDone++
							continue
						}
						require.Equal(t, context.Canceled, g.Err())
						require.Equal(t, errCause, context.Cause(g))
					}
					<-done
					for _, cancelG := range cancelGs {
						cancelG()
					}
					cancelParent(nil)
				}
				require.Zero(t, notDone, "children of package context not done after a cancel returned, of %d", 4*n)
			})
		}
	}
}

// TestAfterFuncCancelsAncestors registers functions that cancel their
// context and its parent, through the AfterFunc method and through
// context.AfterFunc: whichever cancels first, they run and return, with
// none waiting on a cancel that waits on it.
func TestAfterFuncCancelsAncestors(t *testing.T) {
	for _, first := range []string{"cancel", "expire", "parent"} {
		t.Run(first, func(t *testing.T) {
			parent, cancelParent := context.WithCancel(context.Background())
			defer cancelParent()
			d := long
			if first == "expire" {
				d = time.Millisecond
			}
			c, cancel := context.WithTimeout(parent, d)
			defer cancel()
			g, cancelG := stdcontext.WithCancel(c) // a function of package context's too
			defer cancelG()
			both := func() { cancel(); cancelParent() }
			ran := make(chan string, 2)
			c.(interface{ AfterFunc(func()) func() bool }).AfterFunc(func() { both(); ran <- "method" })
			context.AfterFunc(c, func() { both(); ran <- "context.AfterFunc" })
			switch first {
			case "cancel":
				cancel()
			case "parent":
				cancelParent()
			}
			for range 2 {
				select {
				case <-ran:
				case <-time.After(patience):
					t.Fatalf("an AfterFunc function did not return after %v", patience)
				}
			}
			for _, ctx := range []stdcontext.Context{parent, c, g} {
				require.True(t, isDone(ctx))
			}
		})
	}
}
