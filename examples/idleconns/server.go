package main

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/stashnet"
)

// Every message is msgSize bytes; its first byte is the sender's role.
const msgSize = 8

const (
	roleBusy byte = 'B'
	roleIdle byte = 'I'
)

// A server accepts connections and closes each one that stays silent for
// longer than its idle timeout, using one impl timer per connection.
type server struct {
	ln    net.Listener
	impl  impl
	idle  time.Duration
	start time.Time // origin of the connections' last-message times

	msgs       atomic.Int64 // messages received
	idleClosed atomic.Int64 // idle connections closed by their deadline
	busyClosed atomic.Int64 // other connections closed by their deadline

	// Timer misbehaviour, which the idle-deadline pattern must never see.
	early     atomic.Int64 // deadlines that fired less than idle after their Reset
	afterStop atomic.Int64 // deadlines that fired after Stop reported stopping them

	mu    sync.Mutex
	conns map[*serverConn]struct{} // open connections
	late  []time.Duration          // how late each idle connection was closed
	wg    sync.WaitGroup           // the accept loop and the handlers
}

// A serverConn is the server's end of one connection.
type serverConn struct {
	c      net.Conn
	role   atomic.Uint32 // the role byte of its first message; 0 before it
	closed atomic.Bool   // set by whichever closes c: handler, deadline or shutdown
	last   atomic.Int64  // when its deadline was last pushed, in ns since server.start

	// For the misbehaviour checks: the deadline fired less than idle after
	// last; a Reset found the deadline already fired, so a firing may
	// still be on its way (and may see a later last); Stop stopped it.
	early, raced, stopped atomic.Bool
}

// A stampConn is the connection under a serverConn's deadline: its Read
// records when it returned data in sc.last, for the misbehaviour checks and
// the lateness. Both implementations read through it, so both read the
// clock once per Read; stashnet's wrapper goes above it, so that the stamp
// comes before the wrapper sees the activity, as time's comes before its
// Reset.
type stampConn struct {
	net.Conn
	s  *server
	sc *serverConn
}

func (c stampConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.sc.last.Store(int64(time.Since(c.s.start)))
	}
	return n, err
}

// listen starts a server on a free loopback port.
func listen(im impl, idle time.Duration) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{
		ln:    ln,
		impl:  im,
		idle:  idle,
		start: time.Now(),
		conns: make(map[*serverConn]struct{}),
	}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

func (s *server) addr() string { return s.ln.Addr().String() }

// serve accepts connections until the listener is closed.
func (s *server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// A transient error, such as running out of descriptors:
			// retry after a pause, as net/http does.
			time.Sleep(5 * time.Millisecond)
			continue
		}
		sc := &serverConn{}
		sc.c = stampConn{c, s, sc}
		if s.impl.afterFunc == nil {
			sc.c = stashnet.WrapConn(sc.c, stashnet.IdleTimeout(s.idle),
				stashnet.OnIdle(func(c net.Conn) { s.expire(sc, c) }))
		}
		s.mu.Lock()
		if s.conns == nil { // shut down
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[sc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handle(sc)
	}
}

// handle reads sc's messages until it is closed, pushing its idle deadline
// later with each one.
func (s *server) handle(sc *serverConn) {
	defer s.wg.Done()
	sc.last.Store(int64(time.Since(s.start)))
	if s.impl.afterFunc == nil {
		s.handleStash(sc)
		return
	}
	t := s.impl.afterFunc(s.idle, func() { s.expire(sc, sc.c) })
	var buf [msgSize]byte
	for {
		if _, err := io.ReadFull(sc.c, buf[:]); err != nil {
			break // the client hung up, or the deadline or shutdown closed sc
		}
		sc.role.CompareAndSwap(0, uint32(buf[0]))
		s.msgs.Add(1)
		if !t.Reset(s.idle) {
			sc.raced.Store(true)
		}
	}
	if t.Stop() && !sc.raced.Load() {
		sc.stopped.Store(true) // no firing is on its way: none may come
	}
	if sc.closed.CompareAndSwap(false, true) {
		sc.c.Close()
	}
	// A deadline may have fired early, and closed sc to end the loop, only
	// if the firing belonged to an earlier Reset than the last one.
	if sc.early.Load() && !sc.raced.Load() {
		s.early.Add(1)
	}
	s.mu.Lock()
	delete(s.conns, sc)
	s.mu.Unlock()
}

// handleStash is handle for a connection wrapped with stashnet's idle
// timeout: reading a message is all it takes to push the deadline, and
// stashnet calls expire when the connection has been idle.
func (s *server) handleStash(sc *serverConn) {
	var buf [msgSize]byte
	for {
		if _, err := io.ReadFull(sc.c, buf[:]); err != nil {
			break
		}
		sc.role.CompareAndSwap(0, uint32(buf[0]))
		s.msgs.Add(1)
	}
	if sc.closed.CompareAndSwap(false, true) {
		// Close stops the idle timeout: from here on expire must not
		// come, unless it had begun already (a close at the very
		// moment the connection idles out, which no run here makes).
		sc.c.Close()
		sc.stopped.Store(true)
	}
	if sc.early.Load() {
		s.early.Add(1)
	}
	s.mu.Lock()
	delete(s.conns, sc)
	s.mu.Unlock()
}

// expire is sc's deadline: it closes c, sc's connection as the deadline
// knows it, unless something else closed sc first, and counts the close by
// sc's role. A connection that has not said it is idle counts as busy.
func (s *server) expire(sc *serverConn, c net.Conn) {
	if sc.stopped.Load() {
		s.afterStop.Add(1)
		return
	}
	late := time.Since(s.start) - time.Duration(sc.last.Load()) - s.idle
	if late < 0 {
		sc.early.Store(true)
	}
	if !sc.closed.CompareAndSwap(false, true) {
		return
	}
	if byte(sc.role.Load()) == roleIdle {
		s.idleClosed.Add(1)
		s.mu.Lock()
		s.late = append(s.late, late)
		s.mu.Unlock()
	} else {
		s.busyClosed.Add(1)
	}
	c.Close()
}

// close stops accepting, closes the connections still open without
// counting them as deadline closes, and waits for every handler to return.
func (s *server) close() {
	s.ln.Close()
	s.mu.Lock()
	open := s.conns
	s.conns = nil
	s.mu.Unlock()
	for sc := range open {
		if sc.closed.CompareAndSwap(false, true) {
			sc.c.Close()
		}
	}
	s.wg.Wait()
}

// lateness returns the median and the maximum of how late the idle
// connections' deadlines closed them.
func (s *server) lateness() (p50, maxLate time.Duration) {
	s.mu.Lock()
	late := slices.Clone(s.late)
	s.mu.Unlock()
	if len(late) == 0 {
		return 0, 0
	}
	slices.Sort(late)
	return late[len(late)/2], late[len(late)-1]
}
