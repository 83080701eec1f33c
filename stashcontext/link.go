package stashcontext

import (
	"context"
	"errors"
	"time"
)

// Package context cancels the children it lists, of its own types, in the
// goroutine that cancels their parent, and attaches a child to a parent of
// another type through the parent's AfterFunc method if it has one. A
// timerCtx under a parent that package context cancels (one it made,
// http.Request.Context, signal.NotifyContext), or under a Context of other
// code, is linked to it:
//
//   - c holds a child that package context makes, in, of c's parent, or of
//     the link's in of the context of this package c is attached to, and
//     takes its Done channel from it. The parent's cancel cancels in
//     before it returns, and so closes c's Done channel; c's Err, found
//     in's error, takes it and its cause as package context's child would.
//     The contexts of this package below c are linked the same way, under
//     c's in, and are done as soon.
//   - c's own cancel, and the expiry of its deadline, cancel its children
//     first, then in: c's Done channel is closed once they are done.
//     Package context attaches its children to c through c's AfterFunc
//     method (c's Value does not answer package context's key for finding
//     a parent with its in while c is not canceled), so that they see c's
//     Err, DeadlineExceeded once its deadline passes. A finished c cancels
//     in, which takes it off the parent's children.
//   - The parent's cancel cannot run code of this package: c's children
//     of package context, and the functions of c's AfterFunc, are run by a
//     context.AfterFunc on in, in a goroutine of its own, a moment after
//     the parent's cancel returns. c registers that one only once it has
//     such a function.
//
// A link costs c an allocation of its own and package context's child (a
// cancelCtx and its cancel func), against package context's timerCtx,
// timer and their funcs.

// A link is the parent field of a linked timerCtx: its parent, with in.
type link struct {
	Context // the parent
	// in is context.WithCancelCause of the parent, or of the in of the
	// linked context of this package that c is attached to; cancel is its
	// cancel.
	in     Context
	cancel CancelCauseFunc
}

// errUnlinked is the cause with which a linked context cancels its in
// once it is canceled itself. A context of this package cancels its
// children before its in, so that one linked under that in which finds it
// canceled with errUnlinked was not listed among them yet (it is being
// attached): its error is the one its parent gives it, not the in's.
var errUnlinked = errors.New("stashcontext: canceled by its own context")

// canceled returns the error and cause with which the link's parent
// canceled in, nil if it has not.
func (l *link) canceled() (err, cause error) {
	err = l.in.Err()
	if err == nil {
		return nil, nil
	}
	if cause = context.Cause(l.in); cause == errUnlinked {
		return nil, nil
	}
	return err, cause
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
// code). Its in is then a child that package context makes of p's in, or
// of parent.
func newTimerCtx(parent Context, d time.Time, p *timerCtx, stdParent bool) *timerCtx {
	var under Context
	if p != nil {
		if pl := p.link(); pl != nil {
			under = pl.in
		}
	} else if stdParent {
		under = parent
	}
	if under == nil {
		return &timerCtx{parent: parent, deadline: d}
	}
	lc := new(linkedCtx)
	lc.link.Context = parent
	lc.link.in, lc.link.cancel = context.WithCancelCause(under)
	lc.parent, lc.deadline = &lc.link, d
	return &lc.timerCtx
}
