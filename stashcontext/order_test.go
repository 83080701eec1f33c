package stashcontext_test

// When package context's children of a context are done, against package
// context's own: the same cases run on both implementations, under a parent
// that cannot be canceled and under one of package context that can (a
// linked context, for this package).
//
// Package context's cancelCtx.cancel stores its error, closes Done, then
// cancels its children under its lock; a child made of a context of this
// package is canceled by a function registered with its AfterFunc method,
// which reads the parent's Err, nil while Done is open. So in both, a child
// of package context may be found not yet done by an observer woken by the
// parent's Done: what holds once the parent's cancel function returns
// holds in both, and what holds after its Done is seen closed is that the
// child's Done closes, with the parent's error and cause.

import (
	stdcontext "context"
	"errors"
	"testing"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// orderImpl is an implementation's WithTimeoutCause, WithCancelCause and
// WithValue; stash reports this package's.
type orderImpl struct {
	name             string
	stash            bool
	withTimeoutCause func(stdcontext.Context, time.Duration, error) (stdcontext.Context, stdcontext.CancelFunc)
	withCancelCause  func(stdcontext.Context) (stdcontext.Context, stdcontext.CancelCauseFunc)
	withValue        func(stdcontext.Context, any, any) stdcontext.Context
}

var orderImpls = []orderImpl{
	{"context", false, stdcontext.WithTimeoutCause, stdcontext.WithCancelCause, stdcontext.WithValue},
	{"stash", true, context.WithTimeoutCause, context.WithCancelCause, context.WithValue},
}

// orderParents are the parents the cases run under: one that is never
// canceled, and one of package context that can be, which the cases do
// not cancel.
var orderParents = []struct {
	name string
	make func() (stdcontext.Context, stdcontext.CancelFunc)
}{
	{"Background", func() (stdcontext.Context, stdcontext.CancelFunc) { return stdcontext.Background(), func() {} }},
	{"WithCancel", func() (stdcontext.Context, stdcontext.CancelFunc) {
		return stdcontext.WithCancel(stdcontext.Background())
	}},
}

// descendants are what the cases check below a context c: package
// context's children and grandchildren of it, and the implementation's own
// child, each by name.
type descendants struct {
	std, own map[string]stdcontext.Context
	cancels  []func()
}

func newDescendants(im orderImpl, c stdcontext.Context) *descendants {
	d := &descendants{std: map[string]stdcontext.Context{}, own: map[string]stdcontext.Context{}}
	add := func(m map[string]stdcontext.Context, name string, ctx stdcontext.Context, cancel func()) stdcontext.Context {
		m[name] = ctx
		d.cancels = append(d.cancels, cancel)
		return ctx
	}
	ctx, cancel := stdcontext.WithCancel(c)
	std := add(d.std, "context.WithCancel", ctx, cancel)
	ctx, cancel = stdcontext.WithTimeout(std, long)
	add(d.std, "context.WithTimeout of it", ctx, cancel)
	ctx, cancel = stdcontext.WithCancel(im.withValue(c, key("k"), 1))
	add(d.std, "context.WithCancel of WithValue", ctx, cancel)
	ctx, cancel = im.withTimeoutCause(c, long, nil)
	own := add(d.own, "WithTimeout", ctx, cancel)
	ctx, cancel = stdcontext.WithCancel(own)
	add(d.std, "context.WithCancel of WithTimeout", ctx, cancel)
	for _, ctx := range d.std {
		_ = ctx.Done()
	}
	for _, ctx := range d.own {
		_ = ctx.Done()
	}
	return d
}

func (d *descendants) cancel() {
	for _, c := range d.cancels {
		c()
	}
}

// TestCancelReachesStdDescendants cancels a context with a cause: when
// its cancel function returns, every descendant, package context's too, is
// done, with its error and cause.
func TestCancelReachesStdDescendants(t *testing.T) {
	for _, im := range orderImpls {
		for _, p := range orderParents {
			t.Run(im.name+"/"+p.name, func(t *testing.T) {
				parent, cancelParent := p.make()
				defer cancelParent()
				top, cancelTop := im.withTimeoutCause(parent, long, errCause)
				defer cancelTop()
				c, cancel := im.withCancelCause(top)
				d := newDescendants(im, c)
				defer d.cancel()
				errGone := errors.New("gone")
				cancel(errGone)
				for name, ctx := range d.std {
					require.True(t, isDone(ctx), "%s not done when the cancel returned", name)
					require.Equal(t, context.Canceled, ctx.Err(), name)
					require.Equal(t, errGone, context.Cause(ctx), name)
				}
				for name, ctx := range d.own {
					require.True(t, isDone(ctx), "%s not done when the cancel returned", name)
					require.Equal(t, errGone, context.Cause(ctx), name)
				}
				require.NoError(t, top.Err())
				require.NoError(t, parent.Err())
			})
		}
	}
}

// TestExpiryReachesStdDescendants lets a deadline pass: once its Done is
// seen closed, Err and Cause report it at once, and every descendant's
// Done closes, with DeadlineExceeded and the deadline's cause. A
// descendant of this package is done at once (package context's own child
// may not be: its parent closes Done before it cancels its children).
func TestExpiryReachesStdDescendants(t *testing.T) {
	for _, im := range orderImpls {
		for _, p := range orderParents {
			t.Run(im.name+"/"+p.name, func(t *testing.T) {
				parent, cancelParent := p.make()
				defer cancelParent()
				c, cancel := im.withTimeoutCause(parent, time.Millisecond, errCause)
				defer cancel()
				d := newDescendants(im, c)
				defer d.cancel()
				wait(t, c)
				require.Equal(t, context.DeadlineExceeded, c.Err())
				require.Equal(t, errCause, context.Cause(c))
				if im.stash {
					for name, ctx := range d.own {
						require.True(t, isDone(ctx), "%s not done when its parent's Done closed", name)
					}
				}
				for name, ctx := range d.std {
					wait(t, ctx)
					require.Equal(t, context.DeadlineExceeded, ctx.Err(), name)
					require.Equal(t, errCause, context.Cause(ctx), name)
				}
				for name, ctx := range d.own {
					wait(t, ctx)
					require.Equal(t, context.DeadlineExceeded, ctx.Err(), name)
					require.Equal(t, errCause, context.Cause(ctx), name)
				}
				require.NoError(t, parent.Err())
			})
		}
	}
}
