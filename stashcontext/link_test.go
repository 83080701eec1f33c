package stashcontext_test

import (
	stdcontext "context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// TestHandlerDeadlineOnWheel serves requests on loopback whose handler
// takes WithTimeout(r.Context(), time.Hour) and asks for its Done channel:
// the deadline is a timer on stash's wheel, not one of the runtime's. The
// handler empties the pool of timers first (two collections), so that the
// deadline takes a timer of its own, which raises the wheel's Live count;
// another timer leaving the wheel meanwhile can hide that, so one request
// of five that shows it is enough.
func TestHandlerDeadlineOnWheel(t *testing.T) {
	type seen struct {
		typ          string
		live, armed  int64
		err, doneErr error
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Hour)
		defer cancel()
		runtime.GC()
		runtime.GC()
		live0, st0 := stashtime.Default().Stats().Live, context.Stats()
		done := ctx.Done()
		live1, st1 := stashtime.Default().Stats().Live, context.Stats()
		var doneErr error
		select {
		case <-done:
			doneErr = errors.New("done before its deadline")
		default:
		}
		got <- seen{fmt.Sprintf("%T", ctx), live1 - live0,
			(st1.Armed + st1.Reused) - (st0.Armed + st0.Reused), ctx.Err(), doneErr}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	require.True(t, strings.HasPrefix(srv.Listener.Addr().String(), "127.0.0.1:"))

	var all []seen
	raised := false
	for range 5 {
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s := <-got
		all = append(all, s)
		if s.live > 0 {
			raised = true
			break
		}
	}
	require.True(t, raised, "stashtime.Default().Stats().Live never rose as a handler's deadline was armed: %+v", all)
	for _, s := range all {
		require.False(t, strings.HasPrefix(s.typ, "*context."), "WithTimeout(r.Context()) returned a %s", s.typ)
		require.NoError(t, s.err)
		require.NoError(t, s.doneErr)
		require.EqualValues(t, 1, s.armed, "the deadline was not put on the wheel")
	}
}

// stdParentTree is a tree of this package's contexts under a parent of
// package context: WithTimeout of it, and below that every kind of this
// package's context, directly and through values of both packages.
type stdParentTree struct {
	cancelParent stdcontext.CancelCauseFunc
	ours         map[string]stdcontext.Context
	cancels      []func()
}

func newStdParentTree(t *testing.T, on context.Deadlines, look bool) *stdParentTree {
	parent, cancelParent := stdcontext.WithCancelCause(stdcontext.WithValue(stdcontext.Background(), key("k"), "v"))
	tr := &stdParentTree{cancelParent: cancelParent, ours: map[string]stdcontext.Context{}}
	add := func(name string, ctx stdcontext.Context, cancel func()) stdcontext.Context {
		require.False(t, strings.HasPrefix(fmt.Sprintf("%T", ctx), "*context."), "%s is package context's %T", name, ctx)
		tr.ours[name] = ctx
		tr.cancels = append(tr.cancels, cancel)
		if look {
			_ = ctx.Done() // the deadline on the wheel
		}
		return ctx
	}
	ctx, cancel := on.WithTimeout(parent, time.Hour)
	s := add("WithTimeout", ctx, cancel)
	ctx, cancel = on.WithTimeoutCause(s, time.Minute, errCause)
	add("WithTimeoutCause of it", ctx, cancel)
	ctx, cancel = context.WithCancel(s)
	add("WithCancel of it", ctx, cancel)
	ctx, cancel = on.WithDeadline(s, time.Now().Add(2*time.Hour))
	add("WithDeadline of it, later", ctx, cancel)
	ctx, cancel = on.WithTimeout(context.WithValue(s, key("k2"), 2), time.Minute)
	add("WithTimeout of its WithValue", ctx, cancel)
	ctx, cancel = on.WithTimeout(stdcontext.WithValue(s, key("k2"), 2), time.Minute)
	add("WithTimeout of its context.WithValue", ctx, cancel)
	return tr
}

// TestStdParentCancelIsSynchronous cancels a parent of package context
// with a cause, and checks that every context of this package below it is
// done, with the parent's error and cause, when the cancel returns:
// whether their deadlines were armed or not, and on the process-wide
// wheel as on a wheel of the test's own (On).
func TestStdParentCancelIsSynchronous(t *testing.T) {
	w, _ := newManualWheel(t)
	for _, on := range []struct {
		name string
		d    context.Deadlines
	}{{"default", context.Deadlines{}}, {"On", context.On(w)}} {
		for _, look := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/look=%v", on.name, look), func(t *testing.T) {
				tr := newStdParentTree(t, on.d, look)
				for name, ctx := range tr.ours {
					require.NoError(t, ctx.Err(), name)
					require.Equal(t, "v", ctx.Value(key("k")), name)
				}
				errGone := errors.New("gone")
				tr.cancelParent(errGone)
				for name, ctx := range tr.ours {
					require.True(t, isDone(ctx), "%s not done when the parent's cancel returned", name)
					require.Equal(t, context.Canceled, ctx.Err(), name)
					require.Equal(t, errGone, context.Cause(ctx), name)
				}
				for _, c := range tr.cancels {
					c()
				}
				for name, ctx := range tr.ours {
					require.Equal(t, errGone, context.Cause(ctx), "%s after its own cancel", name)
				}
			})
		}
	}
}

// TestStdParentErrBeforeDone cancels the parent and asks Err first,
// Done never: Err reports the parent's cancel at once.
func TestStdParentErrBeforeDone(t *testing.T) {
	parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
	ctx, cancel := context.WithTimeout(parent, time.Hour)
	defer cancel()
	cancelParent()
	require.Equal(t, context.Canceled, ctx.Err())
	require.True(t, isDone(ctx))
}

// TestLinkedExpiry lets a context under a parent of package context
// expire: its children of this package are done before its Done channel
// is closed, and package context's children of it, which it cancels right
// after (as package context cancels its own children after it closes a
// parent's Done), report DeadlineExceeded and its cause. The parent is
// not canceled, and what expired left its children.
func TestLinkedExpiry(t *testing.T) {
	parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
	defer cancelParent()
	ctx, cancel := context.WithTimeoutCause(parent, 2*time.Millisecond, errCause)
	defer cancel()
	ours, cancelOurs := context.WithTimeout(ctx, time.Hour)
	defer cancelOurs()
	ourCancel, cancelOurCancel := context.WithCancel(ctx)
	defer cancelOurCancel()
	std, cancelStd := stdcontext.WithCancel(ctx)
	defer cancelStd()
	stdTimeout, cancelStdTimeout := stdcontext.WithTimeout(ctx, time.Hour)
	defer cancelStdTimeout()
	stdGrand, cancelStdGrand := stdcontext.WithCancel(context.WithValue(ours, key("k"), 1))
	defer cancelStdGrand()
	ran := make(chan struct{})
	stdcontext.AfterFunc(ctx, func() { close(ran) })

	wait(t, ctx)
	require.True(t, isDone(ours), "a child of this package not done when its parent's Done closed")
	require.True(t, isDone(ourCancel), "a child of this package not done when its parent's Done closed")
	require.Equal(t, context.DeadlineExceeded, ctx.Err())
	require.Equal(t, errCause, context.Cause(ctx))
	for _, c := range []stdcontext.Context{ours, ourCancel, std, stdTimeout, stdGrand} {
		wait(t, c)
		require.Equal(t, context.DeadlineExceeded, c.Err(), "%v", c)
		require.Equal(t, errCause, context.Cause(c), "%v", c)
	}
	<-ran
	require.NoError(t, parent.Err())
}

// TestLinkedCancelStdChildren cancels a context under a parent of package
// context: package context's children of it are done when its cancel
// returns.
func TestLinkedCancelStdChildren(t *testing.T) {
	parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
	defer cancelParent()
	ctx, cancel := context.WithTimeout(parent, time.Hour)
	std, cancelStd := stdcontext.WithCancel(ctx)
	defer cancelStd()
	stdGrand, cancelStdGrand := stdcontext.WithTimeout(stdcontext.WithValue(std, key("k"), 1), time.Hour)
	defer cancelStdGrand()
	ours, cancelOurs := context.WithTimeout(std, time.Hour)
	defer cancelOurs()
	cancel()
	for _, c := range []stdcontext.Context{ctx, std, stdGrand, ours} {
		require.True(t, isDone(c), "%v not done when the cancel returned", c)
		require.Equal(t, context.Canceled, c.Err(), "%v", c)
	}
	require.NoError(t, parent.Err())
}

// TestStdParentStdGrandchild checks the one case that is not synchronous:
// package context's child of a context of this package under a parent of
// package context, when that parent is canceled. The parent's cancel
// cannot run this package's code (see link.go): a context.AfterFunc
// cancels the child a moment later, with the parent's error and cause,
// whether or not anything looks at the context in between.
func TestStdParentStdGrandchild(t *testing.T) {
	parent, cancelParent := stdcontext.WithCancelCause(stdcontext.Background())
	ctx, cancel := context.WithTimeout(parent, time.Hour)
	defer cancel()
	std, cancelStd := stdcontext.WithCancel(ctx)
	defer cancelStd()
	errGone := errors.New("gone")
	cancelParent(errGone)
	require.True(t, isDone(ctx))
	wait(t, std) // never asks ctx's Err
	require.Equal(t, context.Canceled, std.Err())
	require.Equal(t, errGone, context.Cause(std))
	require.Equal(t, errGone, context.Cause(ctx))
}
