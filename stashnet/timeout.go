package stashnet

import (
	"net"
	"time"
)

// SetTimeout sets c's read and write deadlines d from now, as
// c.SetDeadline(time.Now().Add(d)) does. On a connection from WrapConn or
// WrapListener it reads the monotonic clock alone, about half of what
// time.Now costs, which is most of what is left of a deadline pushed
// later; on any other connection it is exactly that call. A d <= 0 sets a
// deadline in the past, which fails I/O at once.
func SetTimeout(c net.Conn, d time.Duration) error {
	sc, ok := c.(stashConn)
	if !ok {
		return c.SetDeadline(time.Now().Add(d))
	}
	if err := sc.stashConn().rd.setTimeout(d); err != nil {
		return err
	}
	return sc.stashConn().wd.setTimeout(d)
}

// SetReadTimeout sets c's read deadline d from now, as
// c.SetReadDeadline(time.Now().Add(d)) does, with SetTimeout's saving on a
// wrapped connection.
func SetReadTimeout(c net.Conn, d time.Duration) error {
	if sc, ok := c.(stashConn); ok {
		return sc.stashConn().rd.setTimeout(d)
	}
	return c.SetReadDeadline(time.Now().Add(d))
}

// SetWriteTimeout sets c's write deadline d from now, as
// c.SetWriteDeadline(time.Now().Add(d)) does, with SetTimeout's saving on
// a wrapped connection.
func SetWriteTimeout(c net.Conn, d time.Duration) error {
	if sc, ok := c.(stashConn); ok {
		return sc.stashConn().wd.setTimeout(d)
	}
	return c.SetWriteDeadline(time.Now().Add(d))
}
