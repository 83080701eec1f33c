package stashnet

import (
	"net"
	"time"
)

// An Option configures a connection wrapped by WrapConn or accepted by a
// listener wrapped by WrapListener.
type Option func(*options)

type options struct {
	idle   time.Duration
	jitter time.Duration
	onIdle func(net.Conn)
	src    *timeSource // nil: the process-wide wheel (see WithWheel)
}

// IdleTimeout closes a connection that has made no progress for d: no
// Read or Write has moved a byte, and none of its output has reached the
// peer (on a TCP connection on Linux; elsewhere a Write counts only when it
// returns). A Read or Write that transfers at least one byte counts as
// activity; it costs no clock read, only a stamp of a coarse clock that
// advances at the wheel's passes (at most once a millisecond) and at least
// every 10 ms while idle timeouts are in use: the connection's idle
// timer reads the clock when it fires and, if the connection was active
// since, re-arms for the rest of d; if not, it looks whether the
// connection's output still moves (see the package doc). The connection
// is therefore closed no earlier than d (plus its share of the jitter)
// after its last activity and at most about 10 ms later (plus the wheel's
// precision rule), or up to d/4 later (at least 20 ms) where output was
// pending. Zero or a negative d disables it.
func IdleTimeout(d time.Duration) Option {
	return func(o *options) { o.idle = d }
}

// IdleJitter adds a random extra of less than j, drawn once per
// connection, to its idle timeout, so that connections opened together do
// not idle out together. For a j of 10 ms or more the extra is a whole
// number of 10 ms ticks, so that the connections' idle timers still share
// the wheel's wake-ups. It has no effect without IdleTimeout.
func IdleJitter(j time.Duration) Option {
	return func(o *options) { o.jitter = max(j, 0) }
}

// OnIdle makes f, instead of Close, the action taken when the connection
// idles out; f receives the wrapped connection, runs in its own goroutine,
// and should close the connection or otherwise end its use. It is not
// called once Close has returned, unless it had already begun. It has no
// effect without IdleTimeout.
func OnIdle(f func(net.Conn)) Option {
	return func(o *options) { o.onIdle = f }
}

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
