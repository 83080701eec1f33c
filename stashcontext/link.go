package stashcontext

import (
	"context"
	"sync/atomic"
	"time"
)

// Package context cancels the children it lists, of its own types, in the
// goroutine that cancels their parent, and runs no code of other packages
// there. A timerCtx under a parent that package context cancels (one it
// made, http.Request.Context, signal.NotifyContext), or under a Context of
// other code, is linked to it, and so is one under a linked timerCtx:
//
//   - Its Done channel is that of in, a child that package context makes
//     (context.WithCancelCause) of the parent, or of the in of the linked
//     context of this package it is attached to: the parent's cancel
//     cancels in before it returns, and so closes c's Done channel. In is
//     made when Done is first asked for: until then nothing waits on the
//     channel, and Err asks the parent.
//   - Err, finding in canceled (or, before in is made, the parent), takes
//     the parent's error and cause, as package context's child would.
//   - c's own cancel, and the expiry of its deadline, cancel its children
//     of this package first, then in (closing Done, and taking in off the
//     parent's children), then the functions its AfterFunc method
//     registered, which package context's children of it are (c's Value
//     does not answer package context's key for finding a parent with in):
//     they see c's Err, DeadlineExceeded once the deadline has passed.
//   - The parent's cancel cannot run code of this package: the functions
//     of c's AfterFunc run when the parent is canceled by a
//     context.AfterFunc on the parent, in a goroutine of its own, a moment
//     after the parent's cancel returns, or at once when anything asks c's
//     Err in between. c registers that one with the first such function.
//     No other way is synchronous and exact: the parent's cancel reaches
//     only package context's children, and so only a child g of c that
//     package context lists under in, were c's Value to answer its key
//     with in; but then c's expiry, which can cancel in only with
//     Canceled (in's cancel func), would leave g Canceled, not
//     DeadlineExceeded.
//
// Package context's children of c, like those of its own contexts, are
// done only after c's Done is closed: package context's cancel closes a
// parent's Done before it cancels the children, and c's AfterFunc
// functions cancel them with c's Err, nil while Done is open. In both,
// they are done before the cancel that closed Done returns, or the expiry
// that closed it completes (TestCancelReachesStdDescendants,
// TestExpiryReachesStdDescendants).
//
// WithTimeout then cancel under such a parent costs 16 bytes more than
// under Background, the link, when Done is not asked for; when it is, in,
// its cancel func and a linkIn too, against package context's timerCtx,
// timer and their funcs.

// A link is the parent field of a linked timerCtx: its parent, with what
// links c to it.
type link struct {
	Context // the parent
	// p is the context of this package that c is attached to (see
	// stashParent), nil if the parent is none: in is made under p's in,
	// else under the parent. Set before c is shared.
	p  *timerCtx
	in atomic.Pointer[linkIn] // nil until made, then never changed
}

// A linkIn is a linked context's in and its cancel.
type linkIn struct {
	ctx    Context
	cancel CancelCauseFunc
}

// String is the parent's: package context names c by its parent.
func (l *link) String() string { return contextName(l.Context) }

// link returns c's link, nil if it has none.
func (c *timerCtx) link() *link {
	l, _ := c.parent.(*link)
	return l
}

// parentContext returns c's parent.
func (c *timerCtx) parentContext() Context {
	if l, ok := c.parent.(*link); ok {
		return l.Context
	}
	return c.parent
}

// A linkedCtx is a linked timerCtx and its link, made in one allocation.
type linkedCtx struct {
	timerCtx
	link link
}

// newTimerCtx returns a timerCtx with parent and deadline d, not yet
// attached (see attach): linked if p, the context of this package that
// parent is or wraps, is linked, or if p is nil and stdParent reports that
// parent can be canceled (by package context, or by a Context of other
// code).
func newTimerCtx(parent Context, d time.Time, p *timerCtx, stdParent bool) *timerCtx {
	if p != nil && p.link() == nil || p == nil && !stdParent {
		return &timerCtx{parent: parent, deadline: d}
	}
	lc := new(linkedCtx)
	lc.link.Context, lc.link.p = parent, p
	lc.parent, lc.deadline = &lc.link, d
	if p == nil && !ownCancelCtx(parent) {
		// A Context of other code may tell only the children it had
		// when canceled, through its AfterFunc method or Done: link
		// now, as package context attaches its children at once.
		lc.timerCtx.linkIn(&lc.link)
	}
	return &lc.timerCtx
}

// ownCancelCtx reports whether parent is package context's cancelCtx, or
// wraps one with the same Done channel, as package context finds a parent
// it lists children on.
func ownCancelCtx(parent Context) bool {
	if cancelCtxKey == nil {
		return false
	}
	pc, ok := parent.Value(cancelCtxKey).(Context)
	return ok && pc.Done() == parent.Done()
}

// linkIn returns l's in, made if need be, of c, whose link l is.
func (c *timerCtx) linkIn(l *link) *linkIn {
	if li := l.in.Load(); li != nil {
		return li
	}
	under := l.Context
	if l.p != nil {
		under = l.p.linkIn(l.p.link()).ctx
	}
	li := new(linkIn)
	li.ctx, li.cancel = context.WithCancelCause(under)
	if !l.in.CompareAndSwap(nil, li) {
		li.cancel(nil) // another goroutine made one first
		return l.in.Load()
	}
	// A first cancel of c that made st final before the store above may
	// not have seen li: cancel it here, as that cancel would have. And a
	// parent canceled before li was made may not cancel it: package
	// context's do, a Context of other code may only run the functions
	// its AfterFunc had then.
	if s := c.st.Load(); s != nil && s.final {
		li.cancel(nil)
	} else if li.ctx.Err() == nil {
		if err, _ := l.parentErr(); err != nil {
			li.cancel(nil)
		}
	}
	return li
}

// parentErr returns the error and cause with which c's parent is canceled,
// nil if it is not, without blocking: a canceling context of this package
// reports its error before it has closed its Done channel, and cancels
// its children of this package in between, with that error.
func (l *link) parentErr() (err, cause error) {
	if l.p != nil {
		if s := l.p.st.Load(); s != nil && s.final {
			return s.err, s.cause
		}
		return l.p.link().parentErr()
	}
	if err := l.Context.Err(); err != nil {
		return err, context.Cause(l.Context)
	}
	return nil, nil
}

// parentCanceled reports whether c's parent, whose link l is, is
// canceled: with in made, whether in is (the parent's cancel cancels it
// before it returns), else whether the parent is.
func (l *link) parentCanceled() bool {
	if li := l.in.Load(); li != nil {
		return li.ctx.Err() != nil
	}
	err, _ := l.parentErr()
	return err != nil
}

// watchParent arranges for c, whose link l is, to be canceled when the
// parent of package context it is linked to is, so that the functions of
// its AfterFunc run then: a context.AfterFunc on the parent, registered
// once, or, for a context attached to a linked one of this package, which
// cancels it with its other children, that one's.
func (c *timerCtx) watchParent(l *link) {
	for l.p != nil {
		c, l = l.p, l.p.link()
	}
	x := c.extra()
	x.mu.Lock()
	defer x.mu.Unlock()
	if s := c.st.Load(); x.stopIn == nil && (s == nil || !s.final) {
		x.stopIn = context.AfterFunc(l.Context, func() {
			// The parent's error, read from the parent: this may run
			// before the parent's cancel has reached in.
			if err, cause := l.parentErr(); err != nil {
				c.cancel(true, err, cause)
			}
		})
	}
}
