// Package stashnet puts a network connection's deadlines on stashtime's
// timer wheel, and gives it an idle timeout that costs nothing per Read or
// Write.
//
// Wrap the listener a server accepts on, or a connection, and nothing else
// changes:
//
//	ln, _ := net.Listen("tcp", addr)
//	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
//	srv.Serve(stashnet.WrapListener(ln))
//
// # What moves onto the wheel
//
// SetDeadline, SetReadDeadline and SetWriteDeadline keep, per direction, a
// deadline in an atomic word and a stashtime AfterFunc timer armed at or
// before it. Pushing a deadline later is one CAS: no runtime timer, no
// syscall, no lock; so is clearing it, since the timer, when it fires,
// finds the deadline moved or cleared and re-arms for the rest or stops.
// When the timer is due in less than half the new deadline's distance, a
// push takes a small lock and moves the timer to the new deadline instead,
// so that the timer of a connection that keeps pushing its deadline never
// fires, nor comes due (which would wake the wheel's driver anyway). A
// deadline earlier than the timer's arming takes the lock and a timer
// Reset, and so does one already past, which SetDeadline and its kin tell
// by one read of the monotonic clock (package net reads the clock there
// too). http.Server sets all three kinds on every request (a header
// deadline shorter than the last idle one, and a past deadline and a clear
// to abort its background read), so under it most sets take the lock.
// When a deadline passes, the timer moves the inner connection's deadline
// into the past, so pending and later I/O in that direction fail exactly
// as package net's do (errors.Is(err, os.ErrDeadlineExceeded), Timeout()
// true); a later deadline in the future, or a zero one, clears the inner
// deadline again. A deadline already past when set fails I/O at once, and
// so does one that has passed since, before its timer has fired: a Read
// or Write in a direction with a deadline set reads the monotonic clock
// first and, with the deadline passed, does what the timer would. The
// errors are the inner connection's own, net.ErrClosed after Close
// included.
//
// SetTimeout, SetReadTimeout and SetWriteTimeout set a deadline d from now,
// as SetDeadline(time.Now().Add(d)) and its kin do. On a wrapped
// connection they read the monotonic clock alone, about half of what
// time.Now costs and, once the deadline is one CAS, most of what a push
// later costs; on any other connection they make exactly that call.
//
// The IdleTimeout option closes a connection (or calls OnIdle) once it has
// made no progress for a while. Idle means no progress: no Read or Write
// has moved a byte, and none of the connection's output has reached the
// peer. A Read or Write that moves bytes counts when it returns; a Write
// still moving them counts while it moves, and so does output the peer is
// still taking in after the Write returned, so that a long Write to a slow
// reader is not cut, while one the peer takes nothing of is.
//
// A Read or Write only stamps the connection with a coarse clock's epoch,
// an atomic load and no clock read (it advances at the wheel's passes, at
// most once a millisecond, and a shared timer ticks it every 10 ms while
// idle timeouts are in use); the connection's idle timer reads the clock
// when it fires and re-arms for the rest of the timeout after the last
// activity. The ticks and the re-arms fall on a shared 10 ms grid (shifted
// by the timeout's remainder), so that a busy connection's timer fires
// once per timeout and shares the wheel's wake-up with the others': each
// wake-up of the wheel's driver costs the process thread switches, more
// than a timer firing does. A connection is closed no earlier than the
// timeout (plus its share of IdleJitter, in whole 10 ms ticks when the
// jitter is at least one) after its last activity, and at most about 10 ms
// later.
//
// Output moving is seen by the timer alone, when it finds the connection
// idle by its Reads and Writes: on a TCP connection on Linux it reads the
// count of bytes the peer has acknowledged (TCP_INFO, one system call).
// With output pending it looks again every eighth of the timeout (at
// least 10 ms), and the connection stays until a timeout has passed since
// a look last saw the count grow; pending output that does not move is
// closed an eighth of the timeout after the connection was found idle.
// Elsewhere a Read or Write counts only when it returns.
//
// # What does not
//
// The I/O itself, and the runtime network poller that wakes a blocked
// Read or Write, are package net's: an expired deadline reaches a pending
// Read through the inner connection's deadline, that is one runtime timer
// operation per expiry (and one more when a later deadline revives the
// direction), not per Set. A deadline takes effect on a pending Read or
// Write when the wheel fires it, microseconds after the instant, and on
// the next one at the instant. Code that reads the clock to compute
// a deadline (time.Now().Add(d)) still pays for the clock read; SetTimeout
// and its kin pay for half of it.
//
// # Tests on fake time
//
// Inside a testing/synctest bubble, a connection wrapped there runs on
// the bubble's clock, as package net's do: a deadline 5 s ahead passes
// after exactly 5 s of the bubble's time, and an idle timeout of 30 s
// closes the connection 30 s after its last activity, with no real
// waiting.
//
// The WithWheel option puts a connection's deadlines and idle timeout on
// the stashtime.Timers that production code takes (stashtime.Default()
// there), measured by their clock. On a Wheel over a
// stashtime.ManualClock (stashtest.New makes one), a test advances the
// clock, calls Wheel.Settle (or stashtest's Advance, which does both), and
// sees deadlines pass and connections idle out with no real waiting (see
// the example). There the idle timer stamps activity with a reading of
// the manual clock, exactly, rather than with the coarse clock, which
// follows the system clock, and a timer re-armed while the test moves the
// clock on keeps its instant.
//
// # Counters
//
// Stats reports how many connections idled out, deadlines expired and
// deadlines were set already past, counted per P on the paths that take a
// lock anyway: Reads, Writes and deadlines pushed later count nothing.
//
// # Fast paths
//
// The wrapper has the inner connection's CloseRead, CloseWrite and
// SyscallConn where the inner connection has them, and always ReadFrom and
// WriteTo, which go to the inner connection's (sendfile, splice) when it
// has them and to io.Copy otherwise; a copy between two wrapped
// connections unwraps both. With an idle timeout (on either side) a copy
// goes through Read and Write instead, so that each chunk counts as
// activity. It works under crypto/tls: tls.Server on a
// wrapped connection, or tls.NewListener on a wrapped listener.
//
// Set the deadlines only through the wrapper: the inner connection's own
// are the wrapper's means of failing I/O.
package stashnet
