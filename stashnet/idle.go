package stashnet

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// An idler is a connection's idle timeout. Read and Write only set active
// (and only when it is clear), so a busy connection costs no clock read and
// no timer operation per I/O; the timer checks and clears active each time
// it fires and re-arms for another period while the connection was active,
// as Netty's IdleStateHandler does with its last-activity stamp. The last
// activity is no later than the check that saw it, so a connection that
// stays quiet from one check to the next has been idle for at least a
// period.
type idler struct {
	c        *conn
	active   atomic.Bool  // a Read or Write succeeded since the last check
	inflight atomic.Int32 // ReadFrom and WriteTo calls in progress
	d        time.Duration
	jitter   time.Duration
	onIdle   func(net.Conn)

	mu      sync.Mutex
	timer   *stashtime.Timer
	stopped bool // by Close, or by idling out
}

func newIdler(c *conn, o options) *idler {
	return &idler{c: c, d: o.idle, jitter: o.jitter, onIdle: o.onIdle}
}

// start arms the timer for the first period. The connection must be set
// up: the callback may run before start returns.
func (i *idler) start() {
	i.mu.Lock()
	i.timer = stashtime.AfterFunc(i.period(), i.fire)
	i.mu.Unlock()
}

// period returns the idle timeout plus a random share of the jitter.
func (i *idler) period() time.Duration {
	if i.jitter > 0 {
		return i.d + rand.N(i.jitter)
	}
	return i.d
}

// touch records activity: a load, and a store once per period.
func (i *idler) touch() {
	if !i.active.Load() {
		i.active.Store(true)
	}
}

// fire is the timer's callback.
func (i *idler) fire() {
	i.mu.Lock()
	if i.stopped {
		i.mu.Unlock()
		return
	}
	if i.active.Swap(false) || i.inflight.Load() > 0 {
		i.timer.Reset(i.period())
		i.mu.Unlock()
		return
	}
	i.stopped = true
	i.mu.Unlock()
	if i.onIdle != nil {
		i.onIdle(i.c.self)
		return
	}
	_ = i.c.self.Close()
}

// stop stops the timer for good.
func (i *idler) stop() {
	i.mu.Lock()
	i.stopped = true
	i.timer.Stop()
	i.mu.Unlock()
}
