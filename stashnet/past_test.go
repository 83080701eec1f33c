package stashnet

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// TestPastDeadlineAgain sets a read deadline a millisecond ahead, waits
// until it has passed by a little (spinning, so that the wrapper's timer
// has most likely not fired yet), sets the same deadline again, or a
// timeout of zero, and Reads data that is waiting: package net fails every
// such Read with os.ErrDeadlineExceeded, and so must the wrapper, however
// little time has passed and whether or not its timer has fired.
func TestPastDeadlineAgain(t *testing.T) {
	const trials = 50
	again := map[string]func(c net.Conn, dl time.Time) error{
		"deadline": func(c net.Conn, dl time.Time) error { return c.SetReadDeadline(dl) },
		"timeout":  func(c net.Conn, dl time.Time) error { return SetReadTimeout(c, 0) },
	}
	for _, after := range []time.Duration{50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond} {
		for _, impl := range benchImpls {
			for how, set := range again {
				t.Run(after.String()+"/"+how+"/impl="+impl, func(t *testing.T) {
					c, peer := tcpPair(t)
					if impl == "stash" {
						c = WrapConn(c)
					}
					write(t, peer, "x")
					buf := make([]byte, 1)
					succeeded := 0
					for range trials {
						dl := time.Now().Add(time.Millisecond)
						if err := c.SetReadDeadline(dl); err != nil {
							t.Fatal(err)
						}
						for time.Since(dl) < after {
						}
						if err := set(c, dl); err != nil {
							t.Fatal(err)
						}
						_, err := c.Read(buf)
						if err == nil {
							succeeded++
							write(t, peer, "x") // keep data waiting
							continue
						}
						if !errors.Is(err, os.ErrDeadlineExceeded) {
							t.Fatalf("Read: %v, want os.ErrDeadlineExceeded", err)
						}
					}
					if succeeded > 0 {
						t.Errorf("%d of %d Reads succeeded with the deadline set again %v after it passed", succeeded, trials, after)
					}
				})
			}
		}
	}
}
