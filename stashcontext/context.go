package stashcontext

import (
	"context"
	"reflect"
	"time"
)

// Types. Each is an alias of the type of the same name in package context,
// so values move freely between code that imports either.
type (
	// Context is context.Context.
	Context = context.Context

	// CancelFunc is context.CancelFunc.
	CancelFunc = context.CancelFunc

	// CancelCauseFunc is context.CancelCauseFunc.
	CancelCauseFunc = context.CancelCauseFunc
)

var (
	// Canceled is context.Canceled, the error returned by Context.Err when
	// the context is canceled for some reason other than its deadline
	// passing.
	Canceled = context.Canceled

	// DeadlineExceeded is context.DeadlineExceeded, the error returned by
	// Context.Err when the context is canceled due to its deadline passing.
	DeadlineExceeded = context.DeadlineExceeded
)

// Background returns context.Background().
func Background() Context { return context.Background() }

// TODO returns context.TODO().
func TODO() Context { return context.TODO() }

// WithCancel returns a derived context that points to the parent context
// but has a new Done channel, as context.WithCancel does. The returned
// context's Done channel is closed when the returned cancel function is
// called or when the parent context's Done channel is closed, whichever
// happens first; either way every context derived from it by this package
// is done before that cancel function returns (see attach).
//
// If the parent can be canceled and is not a context of this package (nor
// wraps one with the same Done channel), the result is
// context.WithCancel(parent), which package context attaches to the parent
// itself. Otherwise it is a context of this package, so that the
// deadlines of its descendants stay on stash's wheel.
//
// Canceling this context releases resources associated with it, so code
// should call cancel as soon as the operations running in this Context
// complete.
func WithCancel(parent Context) (ctx Context, cancel CancelFunc) {
	c := newCancelOnly(parent)
	if c == nil {
		return context.WithCancel(parent)
	}
	return c, func() { c.cancel(true, Canceled, nil) }
}

// WithCancelCause behaves like WithCancel but returns a CancelCauseFunc
// instead of a CancelFunc, as context.WithCancelCause does: calling cancel
// with a non-nil error (the "cause") records that error in ctx; it can then
// be retrieved using Cause(ctx). Calling cancel with nil sets the cause to
// Canceled.
func WithCancelCause(parent Context) (ctx Context, cancel CancelCauseFunc) {
	c := newCancelOnly(parent)
	if c == nil {
		return context.WithCancelCause(parent)
	}
	return c, func(cause error) { c.cancel(true, Canceled, cause) }
}

// WithValue returns a derived context that carries the value val for key,
// as context.WithValue does (the same rules for key apply). If the parent
// is a context of this package, or wraps one with the same Done channel,
// the result has an AfterFunc method too, so that a child package context
// makes of it is canceled before the cancel function of its ancestor
// returns, as it would be under package context's own contexts; otherwise
// it is context.WithValue(parent, key, val).
func WithValue(parent Context, key, val any) Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if key == nil {
		panic("nil key")
	}
	if !reflect.TypeOf(key).Comparable() {
		panic("key is not comparable")
	}
	p, _ := stashParent(parent)
	if p == nil {
		return context.WithValue(parent, key, val)
	}
	return &valueCtx{parent, key, val, p}
}

// WithoutCancel is context.WithoutCancel.
func WithoutCancel(parent Context) Context { return context.WithoutCancel(parent) }

// AfterFunc is context.AfterFunc.
func AfterFunc(ctx Context, f func()) (stop func() bool) { return context.AfterFunc(ctx, f) }

// Cause is context.Cause. It reports the cause of a context of this
// package as it does for one of package context.
func Cause(c Context) error { return context.Cause(c) }

// WithDeadline returns a derived context that points to the parent context
// but has the deadline adjusted to be no later than d, as
// context.WithDeadline does, with the deadline on stash's timer wheel. If
// the parent's deadline is already earlier than d, WithDeadline(parent, d)
// is semantically equivalent to parent and returns WithCancel(parent).
//
// If the parent can be canceled and is not a context of this package (nor
// wraps one with the same Done channel), the result is linked to it: it
// holds a child package context makes of the parent, which the parent's
// cancel cancels before it returns, and takes its Done channel from it
// (see link.go and the package documentation). The returned context's
// Done channel is closed when the deadline expires, when the returned
// cancel function is called, or when the parent context's Done channel is
// closed, whichever happens first.
//
// Canceling this context releases resources associated with it, so code
// should call cancel as soon as the operations running in this Context
// complete.
func WithDeadline(parent Context, d time.Time) (Context, CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause behaves like WithDeadline but also sets the cause of the
// returned Context when the deadline is exceeded. The returned CancelFunc
// does not set the cause.
func WithDeadlineCause(parent Context, d time.Time, cause error) (Context, CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		// The current deadline is already sooner than the new one.
		return WithCancel(parent)
	}
	p, cancelable := stashParent(parent)
	return withDeadline(parent, p, cancelable, d, time.Until(d), cause)
}

// WithTimeout returns WithDeadline(parent, time.Now().Add(timeout)).
//
// Canceling this context releases resources associated with it, so code
// should call cancel as soon as the operations running in this Context
// complete:
//
//	func slowOperationWithTimeout(ctx context.Context) (Result, error) {
//		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
//		defer cancel()  // releases resources if slowOperation completes before timeout elapses
//		return slowOperation(ctx)
//	}
func WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return WithTimeoutCause(parent, timeout, nil)
}

// WithTimeoutCause behaves like WithTimeout but also sets the cause of the
// returned Context when the timeout expires. The returned CancelFunc does
// not set the cause.
func WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	now := time.Now()
	d := now.Add(timeout)
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return WithCancel(parent)
	}
	p, cancelable := stashParent(parent)
	// d is now+timeout: what is left of it is timeout, with no second
	// clock read.
	return withDeadline(parent, p, cancelable, d, timeout, cause)
}
