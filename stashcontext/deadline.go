package stashcontext

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// A timerCtx is the context WithDeadline and its kin return: a cancelable
// context whose deadline is a timer on stash's process-wide wheel.
//
// It is kept to 96 bytes, what the common case needs (a parent that cannot
// be canceled, or one of this package's contexts, and no cause): the rest
// is in an extra, made when first needed.
type timerCtx struct {
	parent   Context
	deadline time.Time

	mu sync.Mutex
	// foreign reports that the parent can be canceled and is none of this
	// package's contexts: c is attached to it with context.AfterFunc,
	// whose f runs in a goroutine of its own once the parent is canceled,
	// so Err and Done look at the parent themselves. Set before c is
	// shared.
	foreign bool
	// cancelOnly reports a context made by withCancel: no timer of its
	// own, and the parent's deadline.
	cancelOnly bool
	// armed reports that the deadline is on the wheel, or need not be:
	// see ensureArmed. Set under mu.
	armed atomic.Bool
	done  atomic.Value          // of chan struct{}, made lazily while not canceled, closed by the first cancel
	err   atomic.Pointer[error] // set by the first cancel, before done is closed
	slot  *slot                 // the deadline's timer; guarded by mu, looked at by the first cancel only
	x     *extra                // guarded by mu; nil until needed
}

// extra is what only some contexts need.
type extra struct {
	deadlineCause error // WithDeadlineCause's cause; set before c is shared
	// up is the context of this package that c is attached to, when the
	// parent wraps it (context.WithValue of it, say); set before c is
	// shared.
	up *timerCtx
	// parentStop detaches c from a foreign parent (see timerCtx.foreign);
	// set before c is shared.
	parentStop func() bool

	cause    error                 // the cause, when there is one other than the error
	children map[canceler]struct{} // set to nil by the first cancel
	carrier  any                   // see causeCarrier
}

// A canceler is what a timerCtx cancels along with itself: a child
// timerCtx, or a function registered with AfterFunc.
type canceler interface {
	cancel(removeFromParent bool, err, cause error)
}

// closedchan is a reusable closed channel.
var closedchan = make(chan struct{})

func init() { close(closedchan) }

// Preboxed errors, so that canceling stores them without allocating.
var (
	canceledErr = func() *error { e := Canceled; return &e }()
	deadlineErr = func() *error { e := DeadlineExceeded; return &e }()
)

func boxErr(err error) *error {
	switch err {
	case Canceled:
		return canceledErr
	case DeadlineExceeded:
		return deadlineErr
	}
	p := new(error)
	*p = err
	return p
}

// selfKey is the key for which a timerCtx returns itself (see attach).
var selfKey int

// withDeadline returns a timerCtx with deadline d, which is dur from now,
// attached to parent. bubble reports that the caller is inside a
// testing/synctest bubble.
func withDeadline(parent Context, d time.Time, dur time.Duration, cause error, bubble bool) (Context, CancelFunc) {
	c := &timerCtx{parent: parent, deadline: d}
	if cause != nil {
		c.x = &extra{deadlineCause: cause}
	}
	c.attach()
	if dur <= 0 {
		c.armed.Store(true)
		c.cancel(true, DeadlineExceeded, cause) // the deadline has already passed
		return c, func() { c.cancel(false, Canceled, nil) }
	}
	return c, func() { c.cancel(true, Canceled, nil) }
}

// ensureArmed puts c's deadline on the wheel, unless it is there already,
// or c is canceled, or the deadline has passed, in which case it cancels c
// with DeadlineExceeded at once.
//
// A deadline goes on the wheel only once something could see it pass: Done
// or Err is called, or a child or an AfterFunc is attached. Until then
// nothing tells whether it has passed, so a context canceled before anyone
// looks at it costs the wheel nothing. Deadline, Value and String do not
// arm it.
func (c *timerCtx) ensureArmed() {
	if c.armed.Load() {
		return
	}
	c.mu.Lock()
	if c.armed.Load() {
		c.mu.Unlock()
		return
	}
	c.armed.Store(true)
	if c.err.Load() != nil {
		c.mu.Unlock()
		return
	}
	now := time.Now()
	if dur := c.deadline.Sub(now); dur > 0 {
		arm(c, dur, inBubble(now))
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.expire()
}

// withCancel returns, for a parent whose deadline cur is earlier than the
// one asked for, what context.WithCancel(parent) returns, unless parent is
// or wraps a context of this package: package context would attach its
// context to one behind a context.WithValue with a goroutine; this
// package's cancel-only context attaches to it without one.
func withCancel(parent Context, cur time.Time) (Context, CancelFunc) {
	if _, ok := parent.(*timerCtx); !ok && parent.Value(&selfKey) == nil {
		return context.WithCancel(parent)
	}
	c := &timerCtx{parent: parent, deadline: cur, cancelOnly: true}
	c.armed.Store(true) // it has no timer
	c.attach()
	return c, func() { c.cancel(true, Canceled, nil) }
}

// attach arranges for c to be canceled when its parent is, as
// context.WithCancel does: a context of this package (or one wrapping it
// and sharing its Done channel) lists c among its children; any other
// parent that can be canceled is asked with context.AfterFunc, which needs
// no goroutine while it waits for a parent of package context or one with
// an AfterFunc method.
func (c *timerCtx) attach() {
	parent := c.parent
	if p, ok := parent.(*timerCtx); ok {
		p.addChild(c)
		return
	}
	done := parent.Done()
	if done == nil {
		return // parent is never canceled
	}
	select {
	case <-done:
		// parent is already canceled
		c.cancel(false, parent.Err(), context.Cause(parent))
		return
	default:
	}
	if p, ok := parent.Value(&selfKey).(*timerCtx); ok && p.Done() == done {
		// parent wraps p, and nothing between them cancels.
		if c.x == nil {
			c.x = &extra{}
		}
		c.x.up = p
		p.addChild(c)
		return
	}
	// The callback may run at once, on another goroutine: c.foreign and
	// c.x are set before, and the stop function is recorded under c.mu,
	// where cancelFrom reads it.
	c.foreign = true
	if c.x == nil {
		c.x = &extra{}
	}
	stop := context.AfterFunc(parent, func() {
		c.cancel(false, parent.Err(), context.Cause(parent))
	})
	c.mu.Lock()
	c.x.parentStop = stop
	c.mu.Unlock()
}

// addChild lists child among c's children, or cancels it at once if c is
// canceled already.
func (c *timerCtx) addChild(child canceler) {
	c.ensureArmed()
	c.mu.Lock()
	if e := c.err.Load(); e != nil {
		cause := c.causeLocked()
		c.mu.Unlock()
		child.cancel(false, *e, cause)
		return
	}
	x := c.extra()
	if x.children == nil {
		x.children = make(map[canceler]struct{})
	}
	x.children[child] = struct{}{}
	c.mu.Unlock()
}

// removeChild takes child off c's children and reports whether it was
// there.
func (c *timerCtx) removeChild(child canceler) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.x == nil || c.x.children == nil {
		return false
	}
	_, ok := c.x.children[child]
	delete(c.x.children, child)
	return ok
}

// extra returns c.x, made if need be. c.mu is held.
func (c *timerCtx) extra() *extra {
	if c.x == nil {
		c.x = &extra{}
	}
	return c.x
}

// causeLocked is the cause c's children inherit: nil when it is c's error.
// c.mu is held.
func (c *timerCtx) causeLocked() error {
	if c.x == nil {
		return nil
	}
	return c.x.cause
}

// cancel closes c's Done channel, records err and cause (nil: err), stops
// c's timer, cancels c's children and, if removeFromParent, detaches c from
// its parent. Only the first call does anything.
func (c *timerCtx) cancel(removeFromParent bool, err, cause error) {
	c.cancelFrom(removeFromParent, err, cause, false)
}

// cancelFrom is cancel; fired reports that c's timer called it, so that
// the timer need not be stopped (and its slot is not reused).
func (c *timerCtx) cancelFrom(removeFromParent bool, err, cause error, fired bool) {
	if err == nil {
		panic("context: internal error: missing cancel error")
	}
	c.mu.Lock()
	if c.err.Load() != nil {
		c.mu.Unlock()
		return // already canceled
	}
	c.err.Store(boxErr(err))
	if d, _ := c.done.Load().(chan struct{}); d != nil {
		close(d)
	} else {
		c.done.Store(closedchan) // so that Done after a cancel takes no lock
	}
	var (
		children map[canceler]struct{}
		up       *timerCtx
		stop     func() bool
	)
	if x := c.x; x != nil {
		children, x.children = x.children, nil
		up, stop = x.up, x.parentStop
	}
	if cause != nil {
		c.extra().cause = cause
	}
	s := c.slot // the first cancel is the only one to look at it
	c.mu.Unlock()

	if s != nil && !fired {
		s.release()
	}
	for child := range children {
		child.cancel(false, err, cause)
	}
	if removeFromParent {
		switch p, ok := c.parent.(*timerCtx); {
		case up != nil:
			up.removeChild(c)
		case stop != nil:
			stop()
		case ok:
			p.removeChild(c)
		}
	}
}

// expire cancels c as its deadline passes.
func (c *timerCtx) expire() {
	c.mu.Lock()
	var cause error
	if c.x != nil {
		cause = c.x.deadlineCause
	}
	c.mu.Unlock()
	c.cancelFrom(true, DeadlineExceeded, cause, true)
}

// checkParent cancels c if its foreign parent is canceled and the
// goroutine context.AfterFunc starts has not done it yet.
func (c *timerCtx) checkParent() {
	if err := c.parent.Err(); err != nil {
		c.cancel(true, err, context.Cause(c.parent))
	}
}

// Deadline returns the time when work done on behalf of this context should
// be canceled.
func (c *timerCtx) Deadline() (deadline time.Time, ok bool) {
	return c.deadline, true
}

// Done returns a channel that is closed when this context is canceled.
func (c *timerCtx) Done() <-chan struct{} {
	if d := c.done.Load(); d != nil {
		return d.(chan struct{})
	}
	if c.foreign {
		c.checkParent()
	}
	c.ensureArmed()
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.done.Load()
	if d == nil {
		if c.err.Load() != nil {
			return closedchan
		}
		d = make(chan struct{})
		c.done.Store(d)
	}
	return d.(chan struct{})
}

// Err returns nil while Done is not yet closed, DeadlineExceeded if the
// deadline passed, Canceled if the context was canceled, or the parent's
// error if the parent was canceled first.
func (c *timerCtx) Err() error {
	if e := c.err.Load(); e != nil {
		c.waitClosed()
		return *e
	}
	if c.foreign {
		c.checkParent()
	}
	if !c.armed.Load() {
		c.ensureArmed()
	}
	if e := c.err.Load(); e != nil {
		c.waitClosed()
		return *e
	}
	return nil
}

// waitClosed returns once c's Done channel, if made, is closed: the first
// cancel stores the error before it closes the channel, and Err must not
// report one while Done is open.
func (c *timerCtx) waitClosed() {
	if d, _ := c.done.Load().(chan struct{}); d != nil {
		<-d
	}
}

// Value returns the parent's value for key. For context.Cause it reports
// the cause of a canceled context.
func (c *timerCtx) Value(key any) any {
	switch {
	case key == &selfKey:
		return c
	case cancelCtxKey != nil && key == cancelCtxKey:
		return c.causeCarrier()
	}
	return c.parent.Value(key)
}

// AfterFunc arranges to call f after c is canceled, and returns a function
// that stops that call and reports whether it did. If c is canceled
// already, f runs at once in a goroutine of its own; otherwise it runs in
// the goroutine that cancels c, after c is canceled, as the children of a
// context of package context are canceled. It is what lets package
// context attach its contexts to c without a goroutine: use
// context.AfterFunc, which runs f in a goroutine of its own.
func (c *timerCtx) AfterFunc(f func()) (stop func() bool) {
	n := &funcChild{f: f}
	c.ensureArmed()
	c.mu.Lock()
	if c.err.Load() != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	x := c.extra()
	if x.children == nil {
		x.children = make(map[canceler]struct{})
	}
	x.children[n] = struct{}{}
	c.mu.Unlock()
	return func() bool { return c.removeChild(n) }
}

// A funcChild is a function registered with timerCtx.AfterFunc.
type funcChild struct{ f func() }

func (n *funcChild) cancel(bool, error, error) { n.f() }

// String describes c as package context describes its own.
func (c *timerCtx) String() string {
	if c.cancelOnly {
		return contextName(c.parent) + ".WithCancel"
	}
	return contextName(c.parent) + ".WithDeadline(" +
		c.deadline.String() + " [" +
		time.Until(c.deadline).String() + "])"
}

func contextName(c Context) string {
	if s, ok := c.(interface{ String() string }); ok {
		return s.String()
	}
	return reflect.TypeOf(c).String()
}
