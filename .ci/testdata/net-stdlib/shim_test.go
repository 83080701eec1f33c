// The helpers of package net's own tests that timeout_test.go uses,
// rebuilt from net's exported API for .ci/net-stdlib.sh, which copies this
// file next to the rewritten timeout_test.go. Every connection they make
// is wrapped with stashnet.
package net_test

import (
	"context"
	"fmt"
	"io"
	. "net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stashgo/stash/stashnet"
)

// noDeadline is net's zero deadline.
var noDeadline = time.Time{}

// stashDial dials as Dial does and wraps the connection with stashnet.
func stashDial(network, address string) (Conn, error) {
	c, err := Dial(network, address)
	if err != nil {
		return nil, err
	}
	return stashnet.WrapConn(c), nil
}

// newLocalListener listens on loopback, as net's mockserver_test.go does
// for "tcp", and wraps the listener with stashnet, so that the connections
// it accepts are stashnet's too.
func newLocalListener(t testing.TB, network string, lcOpt ...*ListenConfig) Listener {
	t.Helper()
	if network != "tcp" {
		t.Fatalf("newLocalListener: network %q: only tcp is shimmed", network)
	}
	lc := new(ListenConfig)
	if len(lcOpt) == 1 {
		lc = lcOpt[0]
	}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return stashnet.WrapListener(ln)
}

// localServer is mockserver_test.go's, for stream listeners.
type localServer struct {
	lnmu sync.RWMutex
	Listener
	done chan bool // signal that indicates server stopped
	cl   []Conn    // accepted connection list
}

func (ls *localServer) buildup(handler func(*localServer, Listener)) error {
	go func() {
		handler(ls, ls.Listener)
		close(ls.done)
	}()
	return nil
}

func (ls *localServer) teardown() error {
	ls.lnmu.Lock()
	defer ls.lnmu.Unlock()
	if ls.Listener != nil {
		ls.Listener.Close()
		for _, c := range ls.cl {
			if err := c.Close(); err != nil {
				return err
			}
		}
		<-ls.done
		ls.Listener = nil
	}
	return nil
}

func newLocalServer(t testing.TB, network string) *localServer {
	t.Helper()
	ln := newLocalListener(t, network)
	return &localServer{Listener: ln, done: make(chan bool)}
}

// The error checks of net's error_test.go, from the exported API: an
// *OpError with Op and Net set, around a platform error (Errno, perhaps
// in an *os.SyscallError), ErrClosed or os.ErrDeadlineExceeded.

func checkOpError(e *OpError) error {
	if e.Op == "" {
		return fmt.Errorf("OpError.Op is empty: %v", e)
	}
	if e.Net == "" {
		return fmt.Errorf("OpError.Net is empty: %v", e)
	}
	if e.Err == nil {
		return fmt.Errorf("OpError.Err is nil: %v", e)
	}
	return nil
}

func parseNested(nestedErr error, allowEOF bool, also ...error) error {
	if nestedErr == nil {
		return nil
	}
	op, ok := nestedErr.(*OpError)
	if !ok {
		if allowEOF && nestedErr == io.EOF {
			return nil
		}
		return fmt.Errorf("unexpected type on 1st nested level: %T", nestedErr)
	}
	if err := checkOpError(op); err != nil {
		return err
	}
	nestedErr = op.Err
	if _, ok := nestedErr.(syscall.Errno); ok {
		return nil
	}
	if se, ok := nestedErr.(*os.SyscallError); ok {
		if _, ok := se.Err.(syscall.Errno); ok {
			return nil
		}
		return fmt.Errorf("unexpected type on 3rd nested level: %T", se.Err)
	}
	switch nestedErr {
	case ErrClosed, os.ErrDeadlineExceeded:
		return nil
	}
	for _, a := range also {
		if nestedErr == a {
			return nil
		}
	}
	return fmt.Errorf("unexpected type on 2nd nested level: %T", nestedErr)
}

func parseReadError(err error) error   { return parseNested(err, true) }
func parseWriteError(err error) error  { return parseNested(err, false) }
func parseCommonError(err error) error { return parseNested(err, false, io.ErrUnexpectedEOF) }

// TestMain fails a run in which no deadline reached stashnet: the tests
// would then have checked package net alone.
func TestMain(m *testing.M) {
	code := m.Run()
	if st := stashnet.Stats(); code == 0 && (st.Expiries == 0 || st.PastDeadlines == 0) {
		fmt.Fprintf(os.Stderr, "net-stdlib: stashnet saw %d expiries and %d past deadlines: the connections were not stashnet's\n", st.Expiries, st.PastDeadlines)
		code = 1
	}
	os.Exit(code)
}
