package stashnet

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/epoch"
	"github.com/stashgo/stash/stashtime"
)

// An idler is a connection's idle timeout. Read and Write only stamp the
// connection with the coarse clock's epoch (see coarse.go), one atomic load
// and, once an epoch, a store: no clock read and no timer operation per
// I/O. The timer reads the clock when it fires: the last activity happened
// before the epoch after its stamp began, so the connection has been idle
// since then at least, and the timer re-arms for the remainder of the
// timeout, as Netty's IdleStateHandler does with its last-activity stamp.
// An idle connection is therefore closed no earlier than the timeout after
// its last activity, and later by at most the time the epoch took to
// advance (a pass of the wheel's consumer, at most about coarseTick) plus
// the wheel's precision rule. A connection idle by its Reads and Writes
// whose output still moves is not idle: see watch.
//
// On a wheel whose clock is not the system's (WithWheel over a
// ManualClock), which the coarse clock does not follow, the stamp is a
// reading of that clock instead, exact, and the bound is the stamp itself;
// the timer is armed for the instant the connection would be idle, with
// no grid and no hops, and the instant is kept whoever moves the clock
// (see timeSource.armAt). A connection wrapped inside a testing/synctest
// bubble is on the bubble's clock, exact likewise.
type idler struct {
	c     *conn
	src   *timeSource // nil: the process-wide wheel
	exact bool        // src.exact(): last is a reading of src's clock
	// last is the coarse epoch of the last activity (see touch), or,
	// with exact, the clock's reading of it (see touchExact).
	last   atomic.Int64
	seen   int64         // under mu: the epoch whose bound was last found final
	bound  int64         // under mu: that bound, a clock.Mono reading
	d      time.Duration // the timeout, with this connection's share of the jitter
	off    int64         // d modulo coarseTick: the shift of the grid the timer fires on
	onIdle func(net.Conn)

	mu      sync.Mutex
	timer   *stashtime.Timer
	at      int64 // the clock.Mono instant the timer was last armed for
	stopped bool  // by Close, or by idling out

	// Under mu: the connection's output as the timer last saw it, while
	// it watches the output of a connection idle by its Reads and Writes
	// (see watch).
	watching bool
	acked    uint64 // the bytes the peer had acknowledged
	movedAt  int64  // when the timer last saw acked grow (an upper bound of the move)
}

func newIdler(c *conn, o options) *idler {
	d := o.idle
	if o.jitter > 0 {
		share := rand.N(o.jitter)
		if o.jitter >= coarseTick {
			// Whole ticks, so that the connections of a timeout share
			// its grid (see fire).
			share -= share % coarseTick
		}
		d += share
	}
	return &idler{c: c, src: o.src, exact: o.src.exact(), d: d, off: int64(d % coarseTick), onIdle: o.onIdle}
}

// start arms the timer. The connection must be set up: the callback may run
// before start returns.
func (i *idler) start() {
	if i.exact {
		i.last.Store(i.src.now())
	} else {
		coarseUse()
		i.last.Store(epoch.Now())
	}
	i.mu.Lock()
	now := i.src.now()
	i.timer = i.src.armAt(nil, i.fire, now, i.next(now, now+int64(i.d)))
	i.mu.Unlock()
}

// touch records activity, on an idler without exact. It is small enough
// to inline into Read and Write, which call touchExact instead for one
// with exact.
func (i *idler) touch() {
	e := epoch.Now()
	for {
		// Only forward: a Read and a Write racing must leave the later
		// epoch, or the stamp would put the activity too early.
		old := i.last.Load()
		if old >= e || i.last.CompareAndSwap(old, e) {
			return
		}
	}
}

// touchExact is touch on a clock the coarse clock does not follow: it
// stamps the clock's reading.
func (i *idler) touchExact() {
	now := i.src.now()
	for {
		old := i.last.Load()
		if old >= now || i.last.CompareAndSwap(old, now) {
			return
		}
	}
}

// fire is the timer's callback.
//
// The connection is idle from bound + d on. Until then the timer re-arms
// for the last point before it of the grid (see coarse.go) shifted by off,
// or, with none left before it, for bound + d itself: a connection busy
// throughout fires once per timeout, at a grid point that it shares with
// the other connections of its timeout and, for a multiple of coarseTick,
// with the ticker; one fallen silent fires once more, at bound + d, and is
// closed then, late only by the time its epoch took to end, unless its
// output still moves (see watch).
func (i *idler) fire() {
	i.mu.Lock()
	if i.stopped {
		i.mu.Unlock()
		return
	}
	now := i.src.now()
	bound := i.bound
	if i.exact {
		bound = i.last.Load()
	} else if e := i.last.Load(); e != i.seen || bound == 0 {
		var final bool
		if bound, final = epoch.Before(e, now); final {
			i.seen, i.bound = e, bound
		}
	}
	d := int64(i.d)
	if due := max(bound, i.movedAt) + d; due > now && (!i.watching || bound+d > now) {
		i.watching = false
		i.timer = i.src.armAt(i.timer, nil, now, i.next(now, due))
		i.mu.Unlock()
		return
	}
	if at, ok := i.watch(now); ok {
		i.timer = i.src.armAt(i.timer, nil, now, i.hop(now, at))
		i.mu.Unlock()
		return
	}
	i.stopped = true
	i.mu.Unlock()
	if !i.exact {
		coarseDone()
	}
	counters.idleCloses.Add(1)
	if i.onIdle != nil {
		i.onIdle(i.c.self)
		return
	}
	_ = i.c.self.Close()
}

// next returns when the timer fires next, at now, for a connection idle
// from due on, and records it in i.at: the last point before due of the
// grid shifted by off, or due itself with none left, or earlier still as
// hop has it. With exact, there are no wake-ups to share and no epochs to
// resolve: due itself. mu is held.
func (i *idler) next(now, due int64) int64 {
	if i.exact {
		i.at = due
		return due
	}
	at := gridDown(due, i.off)
	if at <= now {
		at = due
	}
	return i.hop(now, at)
}

// hop returns at, or, without exact, a point within half the span the
// epochs are remembered for, while a newer stamp still resolves; the
// timer fires then and re-arms for the rest. It records the result in
// i.at. mu is held.
func (i *idler) hop(now, at int64) int64 {
	if !i.exact {
		at = min(at, now+epoch.Span/2)
	}
	i.at = at
	return at
}

// watch is called when the connection has been idle by its Reads and
// Writes for d, or while the timer watches its output, and reports whether
// it is active after all, and when to look again: a Write blocked on a
// slow reader, or output that the peer is still taking in, is progress
// although no call returns. It reads how many bytes the peer has
// acknowledged (see sent): with output pending the timer watches, looking
// every probe, and the connection stays until d has passed since a look
// last saw the count grow; one whose pending output does not move is
// closed one probe after it was found idle. With no output pending, the
// connection is idle d after the count last grew. Where sent knows
// nothing, a Read or Write counts only when it returns. mu is held.
func (i *idler) watch(now int64) (at int64, active bool) {
	acked, pending, ok := sent(i.c.inner)
	if !ok {
		return 0, false
	}
	first := !i.watching
	if !first && acked != i.acked {
		i.movedAt = now
	}
	i.watching, i.acked = pending, acked
	due := i.movedAt + int64(i.d)
	switch {
	case !pending && due > now:
		return due, true
	case pending && (first || due > now):
		return now + int64(max(i.d/8, coarseTick)), true
	}
	return 0, false
}

// stop stops the timer for good.
func (i *idler) stop() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stopped {
		return
	}
	i.stopped = true
	i.timer.Stop()
	if !i.exact {
		coarseDone()
	}
}
