package stashcontext

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// A timerCtx is the context WithDeadline and its kin return: a cancelable
// context whose deadline is a timer on stash's process-wide wheel. One
// made by WithCancel (or by WithDeadline under an earlier deadline) is
// cancel-only: no timer of its own, and its parent's deadline.
//
// It is kept to 64 bytes, what the common case needs (a parent that cannot
// be canceled, or one of this package's contexts, and no cause), and takes
// no lock there: its state is one pointer, st, moved by compare-and-swap,
// and the rest is in an extra, made when first needed. Under a parent that
// package context cancels, parent is a *link (see link.go).
type timerCtx struct {
	parent   Context
	deadline time.Time

	// st is where c stands (see slot.go): nil while its deadline is not
	// watched; the slot whose timer watches it, or noTimer if it needs
	// none; once canceled, a final slot with the error and cause, which it
	// keeps. Only the first cancel moves it to a final slot, and it pools
	// the slot it replaces (see slot.put).
	st atomic.Pointer[slot]
	// done is the Done channel (a chan struct{}): nil until asked for (or
	// canceled, with st not nil), then never changed. A channel Done makes
	// is closed by the first cancel, after st is final and c's children
	// of this package are canceled; a Done or Err that sees st final waits
	// for that. Otherwise it is closedchan, or, for a linked context, its
	// link's in's channel (see link.go).
	done unsafe.Pointer
	x    atomic.Pointer[extra] // nil until needed; never changed once set
}

// extra is what only some contexts need.
type extra struct {
	// Set before c is shared:
	deadlineCause error // WithDeadlineCause's cause
	// up is the context of this package that c is attached to, when the
	// parent wraps it (context.WithValue of it, say).
	up *timerCtx
	// cancelOnly reports a context made by newCancelOnly: no timer of its
	// own, and the parent's deadline, if any.
	cancelOnly bool
	// waited reports that a cancel of c waits for running to drop to 0,
	// the count of cancels of c's children under way: the first cancel's,
	// once it has taken them, until all are canceled, and that of each
	// child of package context's attached after c was canceled (see
	// AfterFunc). Guarded by mu (here, they take no room).
	waited  bool
	running int32
	// on is the Timers whose clock the deadline is on, for a context made
	// by On(t).WithDeadline and its kin; nil for the process-wide wheel.
	on *timers
	// stopIn, for a linked context with functions registered by
	// AfterFunc, stops the context.AfterFunc that runs them when the
	// parent is canceled (see link.go). Guarded by mu.
	stopIn func() bool

	mu       sync.Mutex
	children map[canceler]struct{} // guarded by mu; set to nil by the first cancel
	carrier  any                   // guarded by mu; see causeCarrier
}

// A canceler is what a timerCtx cancels along with itself: a child
// timerCtx, or a function registered with AfterFunc.
type canceler interface {
	cancel(removeFromParent bool, err, cause error)
}

// closedchan is a reusable closed channel.
var closedchan = make(chan struct{})

func init() { close(closedchan) }

// selfKey is the key for which a timerCtx returns itself (see attach).
var selfKey int

// withDeadline returns a timerCtx with deadline d, which is dur from now,
// attached to p, the context of this package that parent is or wraps (see
// stashParent), or, with p nil, linked to parent if cancelable.
func withDeadline(parent Context, p *timerCtx, cancelable bool, d time.Time, dur time.Duration, cause error) (Context, CancelFunc) {
	c := newTimerCtx(parent, d, p, cancelable)
	if cause != nil {
		c.x.Store(&extra{deadlineCause: cause})
	}
	c.attach(p)
	return c.finish(dur, cause)
}

// finish cancels c at once if its deadline, dur away, has passed, and
// returns c and its cancel function.
func (c *timerCtx) finish(dur time.Duration, cause error) (Context, CancelFunc) {
	if dur <= 0 {
		// The deadline has already passed.
		old, own := c.cancelFrom(true, DeadlineExceeded, cause)
		if own {
			counters.expired.Add(1)
		}
		if old != nil {
			old.put()
		}
		return c, func() { c.cancel(false, Canceled, nil) }
	}
	return c, func() { c.cancel(true, Canceled, nil) }
}

// ensureArmed gives c a slot whose timer watches its deadline (see
// slot.go), unless it has one already, or c is canceled, or the deadline
// has passed, in which case it cancels c with DeadlineExceeded at once.
//
// A deadline goes on the wheel only once something could see it pass: Done
// or Err is called, or a child or an AfterFunc is attached. Until then
// nothing tells whether it has passed, so a context canceled before anyone
// looks at it costs the wheel nothing. Deadline, Value and String do not
// arm it.
func (c *timerCtx) ensureArmed() {
	if c.st.Load() == nil {
		c.arm()
	}
}

// arm is ensureArmed's slow path. Goroutines that find st nil each take
// a slot that watches c's deadline; the first to store it in st wins, and
// the others, or one that finds c canceled meanwhile, put theirs back.
func (c *timerCtx) arm() {
	var on *timers
	if x := c.x.Load(); x != nil {
		on = x.on
	}
	now, dur, bubble := remaining(c.deadline, on)
	if dur <= 0 {
		c.expireFrom(nil)
		return
	}
	s := newSlot(c, now, dur, bubble, on)
	if !c.st.CompareAndSwap(nil, s) {
		s.put()
	}
}

// stashParent returns the context of this package that parent is, or
// wraps with the same Done channel (context.WithValue of it, say), for a
// child to attach to: nil if there is none, and then cancelable reports
// whether parent can be canceled (its Done is not nil). Package context
// itself attaches its children to such a parent of its own.
func stashParent(parent Context) (p *timerCtx, cancelable bool) {
	if p, ok := parent.(*timerCtx); ok {
		return p, true
	}
	done := parent.Done()
	if done == nil {
		return nil, false // parent is never canceled
	}
	if p, ok := parent.Value(&selfKey).(*timerCtx); ok && p.Done() == done {
		// parent wraps p, and nothing between them cancels.
		return p, true
	}
	return nil, true
}

// newCancelOnly returns the cancel-only context WithCancel and
// WithCancelCause make, or nil if they are to return package context's:
// for a parent that can be canceled and is no context of this package nor
// wraps one (see stashParent), package context's own child is exact and
// costs less, and its deadline-less children need no wheel.
func newCancelOnly(parent Context) *timerCtx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	p, cancelable := stashParent(parent)
	if p == nil && cancelable {
		return nil
	}
	c := newTimerCtx(parent, time.Time{}, p, false)
	c.x.Store(&extra{cancelOnly: true})
	c.st.Store(noTimer)
	c.attach(p)
	return c
}

// attach arranges for c to be canceled when its parent is, as
// context.WithCancel does, in the goroutine that cancels the parent,
// before its cancel function returns: p, the context of this package that
// c's parent is or wraps (see stashParent), lists c among its children.
// With p nil, c's parent is never canceled, or c is linked to it (see
// newTimerCtx).
func (c *timerCtx) attach(p *timerCtx) {
	if p == nil {
		return
	}
	if p != c.parentContext() {
		c.extraSetup().up = p
	}
	p.addChild(c)
}

// extraSetup returns c.x, made if need be, while c is not yet shared.
func (c *timerCtx) extraSetup() *extra {
	x := c.x.Load()
	if x == nil {
		x = new(extra)
		c.x.Store(x)
	}
	return x
}

// extra returns c.x, made if need be.
func (c *timerCtx) extra() *extra {
	if x := c.x.Load(); x != nil {
		return x
	}
	c.x.CompareAndSwap(nil, new(extra))
	return c.x.Load()
}

// addChild lists child among c's children, or cancels it at once if c is
// canceled already.
func (c *timerCtx) addChild(child canceler) {
	c.ensureArmed()
	x := c.extra()
	x.mu.Lock()
	// The first cancel makes st final before it takes the children under
	// x.mu: seen here not final, child is among those it takes.
	if s := c.st.Load(); s.final {
		x.mu.Unlock()
		child.cancel(false, s.err, s.cause)
		return
	}
	if x.children == nil {
		x.children = make(map[canceler]struct{})
	}
	x.children[child] = struct{}{}
	x.mu.Unlock()
}

// removeChild takes child off c's children and reports whether it was
// there.
func (c *timerCtx) removeChild(child canceler) bool {
	x := c.x.Load()
	if x == nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.children == nil {
		return false
	}
	_, ok := x.children[child]
	delete(x.children, child)
	return ok
}

// cancel records err and cause (nil: err), pools the slot that watched
// c's deadline, cancels c's children, closes c's Done channel and, if
// removeFromParent, detaches c from its parent. Only the first call does
// anything.
func (c *timerCtx) cancel(removeFromParent bool, err, cause error) {
	if s, _ := c.cancelFrom(removeFromParent, err, cause); s != nil {
		s.put()
	}
}

// cancelFrom is cancel, but returns the slot that watched c's deadline,
// if this call took it off c, for the caller to put back, and whether this
// call canceled c with err: a linked context whose parent is canceled
// already takes the parent's error and cause instead, as package context's
// child would have from its parent (see link.go).
func (c *timerCtx) cancelFrom(removeFromParent bool, err, cause error) (old *slot, own bool) {
	if err == nil {
		panic("context: internal error: missing cancel error")
	}
	l := c.link()
	own = true
	if l != nil && l.parentCanceled() {
		if e, ec := l.parentErr(); e != nil {
			err, cause, own = e, ec, false
		}
	}
	f := finalSlot(err, cause)
	for {
		old = c.st.Load()
		if old != nil && old.final {
			c.waitCanceled()
			return nil, false // already canceled
		}
		if c.st.CompareAndSwap(old, f) {
			break
		}
	}
	// Err reports err from here on, once Done is closed. The children of
	// this package are canceled before, with err and cause: whoever sees
	// c's Done closed sees them done. The functions AfterFunc registered,
	// which package context's children of c are, run after, as package
	// context cancels its children after it closes Done: they read c's Err
	// and Cause. A later cancel waits until all have run (see
	// waitCanceled).
	x := c.x.Load()
	var children map[canceler]struct{}
	if x != nil {
		x.mu.Lock()
		children = x.children
		x.children = nil
		if children != nil {
			x.running++
		}
		stopIn := x.stopIn
		x.mu.Unlock()
		if stopIn != nil {
			stopIn()
		}
		for child := range children {
			if child, ok := child.(*timerCtx); ok {
				child.cancel(false, err, cause)
			}
		}
	}
	switch {
	case l != nil:
		// Canceling in closes c's Done channel, and takes in off its
		// parent's children. With none made yet, Done stores closedchan,
		// unless it stored in's channel meanwhile: then in is made.
		li := l.in.Load()
		if li == nil && !c.casDone(nil, closedchan) {
			li = l.in.Load()
		}
		if li != nil {
			li.cancel(nil)
		}
	case old != nil:
		// Done makes a channel only once st is not nil (see makeDone):
		// if it was nil, there is none to close, and Done stores
		// closedchan itself. Otherwise Done stores closedchan only once
		// st is final, and only this call closes a channel Done made.
		if d := c.loadDone(); d != nil || !c.casDone(nil, closedchan) {
			if d = c.loadDone(); d != closedchan {
				close(d)
			}
		}
	}
	for child := range children {
		if _, ok := child.(*timerCtx); !ok {
			child.cancel(false, err, cause)
		}
	}
	if children != nil {
		x.doneCanceling()
	}
	if old == noTimer {
		old = nil
	}
	if removeFromParent {
		// Whatever the kind of c or of its parent, a finished c leaves
		// the parent's children (see attach).
		if x != nil && x.up != nil {
			x.up.removeChild(c)
		} else if p, ok := c.parentContext().(*timerCtx); ok {
			p.removeChild(c)
		}
	}
	return old, own
}

// cancelWait is where a cancel that finds a context canceled waits for the
// cancels of its children under way (see waitCanceled), and what the last
// of them wakes it with.
var cancelWait = sync.NewCond(new(sync.Mutex))

// waitCanceled returns once the first cancel of c, which made st final,
// has closed c's Done channel and canceled the children it took, package
// context's included, and so have the goroutines that cancel package
// context's children attached since: a later cancel returns no sooner, as
// package context's waits on the context's lock. What they run only
// cancels c's descendants (the functions of AfterFunc that are not package
// context's run in goroutines of their own, not waited for), so none waits
// on a cancel of c or of an ancestor.
func (c *timerCtx) waitCanceled() {
	if x := c.x.Load(); x != nil && x.isCanceling(false) {
		cancelWait.L.Lock()
		for x.isCanceling(true) {
			cancelWait.Wait()
		}
		cancelWait.L.Unlock()
	}
	c.waitClosed()
}

// isCanceling reports whether a canceled context, whose extra x is, has
// cancels of its children under way, or children its first cancel has yet
// to take, and records that a cancel waits for them if wait.
func (x *extra) isCanceling(wait bool) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	// With st final, children not nil are the first cancel's to take: any
	// added were added before st was final, with x set.
	busy := x.running > 0 || x.children != nil
	if busy && wait {
		x.waited = true
	}
	return busy
}

// doneCanceling ends a cancel of children counted in running; the last
// wakes the cancels waiting for them.
func (x *extra) doneCanceling() {
	x.mu.Lock()
	x.running--
	waited := x.waited && x.running == 0
	if waited {
		x.waited = false
	}
	x.mu.Unlock()
	if waited {
		// Under cancelWait.L, which a waiter holds from its look at
		// running until it waits.
		cancelWait.L.Lock()
		cancelWait.Broadcast()
		cancelWait.L.Unlock()
	}
}

// expireFrom cancels c as its deadline passes, seen by s's callback (nil:
// by arm), and reports whether that took s off c, for the caller to put
// back.
func (c *timerCtx) expireFrom(s *slot) bool {
	var cause error
	if x := c.x.Load(); x != nil {
		cause = x.deadlineCause
	}
	old, own := c.cancelFrom(true, DeadlineExceeded, cause)
	if own {
		counters.expired.Add(1)
	}
	if old != nil && old != s {
		old.put()
	}
	return old != nil && old == s
}

// look is what Done and Err do before they read st: put the deadline on
// the wheel.
func (c *timerCtx) look() *slot {
	if s := c.st.Load(); s != nil {
		return s
	}
	c.arm()
	return c.st.Load()
}

// Deadline returns the time when work done on behalf of this context should
// be canceled.
func (c *timerCtx) Deadline() (deadline time.Time, ok bool) {
	if x := c.x.Load(); x != nil && x.cancelOnly {
		return c.parent.Deadline() // a link's is its parent's
	}
	return c.deadline, true
}

// Done returns a channel that is closed when this context is canceled,
// once its children made by this package are.
func (c *timerCtx) Done() <-chan struct{} {
	if d := c.loadDone(); d != nil {
		return d
	}
	return c.makeDone()
}

// makeDone is Done's slow path: the first call makes the channel, unless
// c is canceled, or takes its link's.
func (c *timerCtx) makeDone() <-chan struct{} {
	if l := c.link(); l != nil {
		c.look()
		// in's, closed by the first cancel of c (see cancelFrom), or by
		// the parent's; or closedchan, stored by the first cancel.
		d := c.linkIn(l).ctx.Done()
		c.casDone(nil, *(*chan struct{})(unsafe.Pointer(&d)))
		return c.loadDone()
	}
	if s := c.look(); s.final {
		c.casDone(nil, closedchan)
	} else {
		c.casDone(nil, make(chan struct{}))
	}
	// A channel made here, with st not nil, and stored after the first
	// cancel made st final, is closed by that cancel, which found st not
	// nil and so stores closedchan or finds this one.
	d := c.loadDone()
	if c.st.Load().final {
		<-d
	}
	return d
}

// Err returns nil while Done is not yet closed, DeadlineExceeded if the
// deadline passed, Canceled if the context was canceled, or the parent's
// error if the parent was canceled first.
func (c *timerCtx) Err() error {
	s := c.st.Load()
	if s == nil || !s.final {
		if l := c.link(); l != nil && l.parentCanceled() {
			// The parent is canceled: so is c, with its error (see
			// cancelFrom).
			c.cancel(true, Canceled, nil)
		} else if s = c.look(); !s.final {
			return nil
		}
		s = c.st.Load()
	}
	c.waitClosed()
	return s.err
}

// waitClosed returns once c's Done channel, if made (a linked context's
// once it has an in), is closed: the first cancel makes st final before it
// closes the channel, and Err must not report an error while Done is open.
func (c *timerCtx) waitClosed() {
	if l := c.link(); l != nil {
		if li := l.in.Load(); li != nil {
			<-li.ctx.Done()
			return
		}
	}
	if d := c.loadDone(); d != nil {
		<-d
	}
}

func (c *timerCtx) loadDone() chan struct{} {
	p := atomic.LoadPointer(&c.done)
	return *(*chan struct{})(unsafe.Pointer(&p))
}

func (c *timerCtx) casDone(old, new chan struct{}) bool {
	return atomic.CompareAndSwapPointer(&c.done,
		*(*unsafe.Pointer)(unsafe.Pointer(&old)), *(*unsafe.Pointer)(unsafe.Pointer(&new)))
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
	return c.parent.Value(key) // a link's is its parent's
}

// AfterFunc arranges to call f after c is canceled, and returns a function
// that stops that call and reports whether it did. f runs in a goroutine
// of its own, as context.AfterFunc's does, except the function through
// which package context attaches a child of its own to c, which only
// cancels that child: that one runs in the goroutine that cancels c, after
// c is canceled and before the cancel returns, as package context cancels
// the children of its own contexts (see stdChildFunc). If c is canceled
// already, f runs at once in a goroutine of its own.
//
// For a linked context, the functions also run when the link's parent is
// canceled: then in a goroutine of package context's, a moment after that
// parent's cancel returns (see link.go).
func (c *timerCtx) AfterFunc(f func()) (stop func() bool) {
	n := &funcChild{f: f, std: stdChildFunc(f)}
	l := c.link()
	if l != nil && l.parentCanceled() {
		c.cancel(true, Canceled, nil) // with the parent's error
	}
	c.ensureArmed()
	x := c.extra()
	x.mu.Lock()
	if c.st.Load().final {
		if !n.std {
			x.mu.Unlock()
			go f()
			return func() bool { return false }
		}
		// Package context holds its child's lock here, which f takes:
		// f runs in a goroutine, which a later cancel of c waits for,
		// as package context's would for a child it cancels on
		// attaching it to a canceled parent.
		x.running++
		x.mu.Unlock()
		go func() {
			f()
			x.doneCanceling()
		}()
		return func() bool { return false }
	}
	if x.children == nil {
		x.children = make(map[canceler]struct{})
	}
	x.children[n] = struct{}{}
	x.mu.Unlock()
	if l != nil {
		c.watchParent(l)
	}
	return func() bool { return c.removeChild(n) }
}

// A funcChild is a function registered with timerCtx.AfterFunc; std
// reports package context's, which cancels a child of its own.
type funcChild struct {
	f   func()
	std bool
}

// cancel runs n's function: in the goroutine that cancels c if it is
// package context's, else in a goroutine of its own, so that it may
// cancel c, or an ancestor, whose cancel waits for c's to finish (see
// waitCanceled).
func (n *funcChild) cancel(bool, error, error) {
	if n.std {
		n.f()
	} else {
		go n.f()
	}
}

// stdChildFuncs are the code pointers of the function package context
// registers through a parent's AfterFunc method to cancel its child, in
// propagateCancel: learnt at init from a probe parent, through each
// function of package context that attaches a child.
var stdChildFuncs []uintptr

// stdChildFunc reports whether f is package context's function that
// cancels its child (see stdChildFuncs).
func stdChildFunc(f func()) bool {
	pc := reflect.ValueOf(f).Pointer()
	for _, p := range stdChildFuncs {
		if pc == p {
			return true
		}
	}
	return false
}

// A funcProbe is a parent that is never canceled and records the code
// pointers of the functions registered with its AfterFunc method.
type funcProbe struct {
	done chan struct{}
	pcs  []uintptr
}

func (p *funcProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
func (p *funcProbe) Done() <-chan struct{}       { return p.done }
func (p *funcProbe) Err() error                  { return nil }
func (p *funcProbe) Value(any) any               { return nil }
func (p *funcProbe) AfterFunc(f func()) func() bool {
	pc := reflect.ValueOf(f).Pointer()
	if !slices.Contains(p.pcs, pc) {
		p.pcs = append(p.pcs, pc)
	}
	return func() bool { return true }
}

func init() {
	p := &funcProbe{done: make(chan struct{})}
	_, cancel := context.WithCancel(p)
	cancel()
	_, cancel = context.WithDeadline(p, time.Now().Add(time.Hour))
	cancel()
	stop := context.AfterFunc(p, func() {})
	stop()
	stdChildFuncs = p.pcs
}

// String describes c as package context describes its own.
func (c *timerCtx) String() string {
	if x := c.x.Load(); x != nil && x.cancelOnly {
		return contextName(c.parent) + ".WithCancel"
	}
	left := time.Until(c.deadline)
	if x := c.x.Load(); x != nil && x.on != nil {
		left = x.on.Until(c.deadline)
	}
	return contextName(c.parent) + ".WithDeadline(" +
		c.deadline.String() + " [" + left.String() + "])"
}

func contextName(c Context) string {
	if s, ok := c.(interface{ String() string }); ok {
		return s.String()
	}
	return reflect.TypeOf(c).String()
}
