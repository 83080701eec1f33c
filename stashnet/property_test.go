package stashnet

import (
	"net"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A deadlineOp is one SetReadDeadline call of the property test.
type deadlineOp int

const (
	opClear deadlineOp = iota // time.Time{}
	opPast                    // a second ago
	opNear                    // a few milliseconds ahead
	opFar                     // an hour ahead
)

func (op deadlineOp) deadline(now time.Time, near time.Duration) time.Time {
	switch op {
	case opPast:
		return now.Add(-time.Second)
	case opNear:
		return now.Add(near)
	case opFar:
		return now.Add(time.Hour)
	}
	return time.Time{}
}

// TestDeadlineProperty sets, moves and clears a wrapped connection's read
// deadline in random order from several goroutines at once, then sets it
// once more, and checks that I/O fails if and only if that last deadline
// has passed: a Read of available data succeeds after a clear or a far
// deadline, fails at once after a past one, and a blocked Read fails no
// earlier than a near one. It waits for the near deadlines of the
// concurrent phase to pass before it looks, so that their timers have had
// their chance to fire, wrongly.
func TestDeadlineProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	opGen := rapid.IntRange(int(opClear), int(opFar))
	rapid.Check(t, func(rt *rapid.T) {
		workers := rapid.IntRange(1, 4).Draw(rt, "workers")
		ops := make([][]deadlineOp, workers)
		for i := range ops {
			n := rapid.IntRange(0, 8).Draw(rt, "ops")
			for range n {
				ops[i] = append(ops[i], deadlineOp(opGen.Draw(rt, "op")))
			}
		}
		final := deadlineOp(opGen.Draw(rt, "final"))
		near := time.Duration(rapid.IntRange(1, 20).Draw(rt, "nearMs")) * time.Millisecond
		// Some workers set their deadlines with SetReadTimeout, d from
		// now, which reads only the monotonic clock.
		relative := rapid.SliceOfN(rapid.Bool(), workers, workers).Draw(rt, "relative")

		c, peer := tcpPair(t)
		w := WrapConn(c)
		defer w.Close()
		defer peer.Close()

		var wg sync.WaitGroup
		start := time.Now()
		for i, seq := range ops {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, op := range seq {
					var err error
					if now := time.Now(); relative[i] && op != opClear {
						err = SetReadTimeout(w, op.deadline(now, near).Sub(now))
					} else {
						err = w.SetReadDeadline(op.deadline(now, near))
					}
					if err != nil {
						rt.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		// Every near deadline of the concurrent phase has passed
		// after this, and its timer is due.
		if d := time.Until(start.Add(near + 5*time.Millisecond)); d > 0 {
			time.Sleep(d)
		}
		dl := final.deadline(time.Now(), near)
		if err := w.SetReadDeadline(dl); err != nil {
			rt.Fatal(err)
		}
		checkFinal(rt, w, peer, final, dl)
	})
}

func checkFinal(rt *rapid.T, w, peer net.Conn, final deadlineOp, dl time.Time) {
	buf := make([]byte, 1)
	switch final {
	case opClear, opFar:
		// A stale timer of the concurrent phase is due by now: give it
		// a moment to do its wrong, then data must still be readable.
		time.Sleep(2 * time.Millisecond)
		if _, err := peer.Write([]byte("x")); err != nil {
			rt.Fatal(err)
		}
		if _, err := w.Read(buf); err != nil {
			rt.Fatalf("Read after final %v: %v", final, err)
		}
	case opPast:
		if _, err := peer.Write([]byte("x")); err != nil {
			rt.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if _, err := w.Read(buf); !isTimeout(err) {
			rt.Fatalf("Read after a past deadline: %v, want a timeout", err)
		}
	case opNear:
		// A Read that never fails is cut by closing the connection.
		watchdog := time.AfterFunc(time.Until(dl)+slack, func() { w.Close() })
		defer watchdog.Stop()
		_, err := w.Read(buf)
		now := time.Now()
		if !isTimeout(err) {
			rt.Fatalf("Read with a near deadline: %v, want a timeout", err)
		}
		if now.Before(dl) {
			rt.Fatalf("Read failed %v before its deadline", dl.Sub(now))
		}
		if now.Sub(dl) > slack {
			rt.Fatalf("Read failed %v after its deadline", now.Sub(dl))
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
