package stashcontext

import (
	"context"
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

// WithCancel is context.WithCancel.
func WithCancel(parent Context) (ctx Context, cancel CancelFunc) {
	return context.WithCancel(parent)
}

// WithCancelCause is context.WithCancelCause.
func WithCancelCause(parent Context) (ctx Context, cancel CancelCauseFunc) {
	return context.WithCancelCause(parent)
}

// WithValue is context.WithValue.
func WithValue(parent Context, key, val any) Context {
	return context.WithValue(parent, key, val)
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
// is semantically equivalent to parent and returns what
// context.WithCancel(parent) does (a context of this package if the parent
// is or wraps one, so that it is attached without a goroutine).
// The returned context's Done channel is closed when the deadline expires,
// when the returned cancel function is called, or when the parent context's
// Done channel is closed, whichever happens first.
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
		return withCancel(parent, cur)
	}
	return withDeadline(parent, d, time.Until(d), cause)
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
		return withCancel(parent, cur)
	}
	// d is now+timeout: what is left of it is timeout, with no second
	// clock read.
	return withDeadline(parent, d, timeout, cause)
}
