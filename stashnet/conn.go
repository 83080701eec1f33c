package stashnet

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// WrapConn returns c with its deadlines on stashtime's wheel and, with the
// IdleTimeout option, an idle timeout. The result has the methods of c's
// fast paths that c has among CloseRead, CloseWrite and SyscallConn, and
// always ReadFrom and WriteTo, which use c's where c has them. Set c's
// deadlines only through the result from then on. WrapConn panics if c is
// nil.
func WrapConn(c net.Conn, opts ...Option) net.Conn {
	if c == nil {
		panic("stashnet: WrapConn of nil net.Conn")
	}
	return wrap(c, buildOptions(opts))
}

type (
	closeReader interface{ CloseRead() error }
	closeWriter interface{ CloseWrite() error }
)

// wrap wraps c in the variant that has c's optional methods: a conn with
// those of c's interfaces embedded, c itself, which promotes their
// methods.
func wrap(c net.Conn, o options) net.Conn {
	r, cr := c.(closeReader)
	w, cw := c.(closeWriter)
	s, sc := c.(syscall.Conn)
	switch {
	case cr && cw && sc: // *net.TCPConn, *net.UnixConn
		v := &struct {
			conn
			closeReader
			closeWriter
			syscall.Conn
		}{closeReader: r, closeWriter: w, Conn: s}
		return v.init(c, o, v)
	case cr && cw:
		v := &struct {
			conn
			closeReader
			closeWriter
		}{closeReader: r, closeWriter: w}
		return v.init(c, o, v)
	case cr && sc:
		v := &struct {
			conn
			closeReader
			syscall.Conn
		}{closeReader: r, Conn: s}
		return v.init(c, o, v)
	case cw && sc:
		v := &struct {
			conn
			closeWriter
			syscall.Conn
		}{closeWriter: w, Conn: s}
		return v.init(c, o, v)
	case cr:
		v := &struct {
			conn
			closeReader
		}{closeReader: r}
		return v.init(c, o, v)
	case cw: // *tls.Conn
		v := &struct {
			conn
			closeWriter
		}{closeWriter: w}
		return v.init(c, o, v)
	case sc:
		v := &struct {
			conn
			syscall.Conn
		}{Conn: s}
		return v.init(c, o, v)
	default: // net.Pipe
		v := &struct{ conn }{}
		return v.init(c, o, v)
	}
}

// A conn is the part of a wrapped connection common to every variant.
type conn struct {
	inner  net.Conn
	self   net.Conn // the variant that holds this conn, as handed out
	rd, wd deadline
	idle   *idler // nil without an idle timeout
	done   atomic.Bool
}

// init sets c up around inner and returns self, the variant holding c.
func (c *conn) init(inner net.Conn, o options, self net.Conn) net.Conn {
	c.inner, c.self = inner, self
	o.src = o.src.inBubble()
	c.rd.init(inner.SetReadDeadline, o.src)
	c.wd.init(inner.SetWriteDeadline, o.src)
	if o.idle > 0 {
		c.idle = newIdler(c, o)
		c.idle.start()
	}
	return self
}

// stashConn returns c; the variants promote it, so a wrapped connection is
// told apart from any other.
func (c *conn) stashConn() *conn { return c }

type stashConn interface{ stashConn() *conn }

// Read reads from the connection, as the inner connection's Read does. A
// read deadline that has passed fails it at once, as package net's does,
// whether or not the wheel's timer has fired yet.
func (c *conn) Read(b []byte) (int, error) {
	c.rd.check()
	n, err := c.inner.Read(b)
	if n > 0 && c.idle != nil {
		if c.idle.exact {
			c.idle.touchExact()
		} else {
			c.idle.touch()
		}
	}
	return n, err
}

// Write writes to the connection, as the inner connection's Write does. A
// write deadline that has passed fails it at once, as Read's does.
func (c *conn) Write(b []byte) (int, error) {
	c.wd.check()
	n, err := c.inner.Write(b)
	if n > 0 && c.idle != nil {
		if c.idle.exact {
			c.idle.touchExact()
		} else {
			c.idle.touch()
		}
	}
	return n, err
}

// Close stops the connection's timers and closes the inner connection. A
// second Close returns the inner connection's error (net.ErrClosed for a
// package net connection).
func (c *conn) Close() error {
	if c.done.CompareAndSwap(false, true) {
		c.rd.close()
		c.wd.close()
		if c.idle != nil {
			c.idle.stop()
		}
	}
	return c.inner.Close()
}

func (c *conn) LocalAddr() net.Addr  { return c.inner.LocalAddr() }
func (c *conn) RemoteAddr() net.Addr { return c.inner.RemoteAddr() }

// SetDeadline sets the read and write deadlines, as net.Conn's does, on
// stashtime's wheel.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.rd.setDeadline(t); err != nil {
		return err
	}
	return c.wd.setDeadline(t)
}

// SetReadDeadline sets the read deadline, as net.Conn's does, on
// stashtime's wheel: pushing a deadline later, or clearing it, is one CAS.
func (c *conn) SetReadDeadline(t time.Time) error { return c.rd.setDeadline(t) }

// SetWriteDeadline sets the write deadline, as net.Conn's does, on
// stashtime's wheel.
func (c *conn) SetWriteDeadline(t time.Time) error { return c.wd.setDeadline(t) }

// NetConn returns the inner connection. Setting its deadlines directly
// confuses the wrapper's.
func (c *conn) NetConn() net.Conn { return c.inner }

// ReadFrom implements io.ReaderFrom with the inner connection's ReadFrom
// where it has one (sendfile, splice), so that a copy into the connection
// keeps the inner connection's fast path; a source that is itself a
// wrapped connection is unwrapped. With an idle timeout on either side the
// copy goes through Read and Write instead, so that each chunk counts as
// activity and a copy stalled on a silent peer does not.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	src := r
	s, wrapped := r.(stashConn)
	if c.idle != nil || wrapped && s.stashConn().idle != nil {
		return io.Copy(writerOnly{c}, readerOnly{r})
	}
	c.wd.check()
	if wrapped {
		s.stashConn().rd.check()
		src = s.stashConn().inner
	}
	if rf, ok := c.inner.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{c.inner}, src)
}

// WriteTo implements io.WriterTo with the inner connection's WriteTo where
// it has one, as ReadFrom does.
func (c *conn) WriteTo(w io.Writer) (int64, error) {
	dst := w
	s, wrapped := w.(stashConn)
	if c.idle != nil || wrapped && s.stashConn().idle != nil {
		return io.Copy(writerOnly{w}, readerOnly{c})
	}
	c.rd.check()
	if wrapped {
		s.stashConn().wd.check()
		dst = s.stashConn().inner
	}
	if wt, ok := c.inner.(io.WriterTo); ok {
		return wt.WriteTo(dst)
	}
	return io.Copy(dst, readerOnly{c.inner})
}

// writerOnly and readerOnly hide every method but Write and Read, so that
// io.Copy does not call back into ReadFrom or WriteTo.
type (
	writerOnly struct{ io.Writer }
	readerOnly struct{ io.Reader }
)
