package stashnet

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// TestNanosIsMono checks that a deadline's int64 form is a reading of
// clock.Mono, the clock the wheel and the idle timers read: time.Now
// converts to a reading between the two taken around it (late by at most
// the conversion's few nanoseconds, never early), and the far future
// saturates.
func TestNanosIsMono(t *testing.T) {
	const late = 100 * time.Microsecond // the conversion's error is nanoseconds
	for range 1000 {
		a := clock.Mono()
		n := nanos(time.Now())
		b := clock.Mono()
		if n < a || n > b+int64(late) {
			t.Fatalf("nanos(time.Now()) = %d, outside the clock.Mono readings [%d, %d] around it", n, a, b)
		}
	}
	if n := nanos(time.Now().Add(math.MaxInt64)); n != maxDeadline {
		t.Errorf("nanos of the far future = %d, want maxDeadline", n)
	}
	if n := nanos(time.Unix(1, 0)); n > clock.Mono() {
		t.Errorf("nanos(time.Unix(1, 0)) = %d, not in the past", n)
	}
}

// TestPushedDeadlineSparesTimer pushes a connection's deadline 100 ms
// ahead every millisecond for a second, as http.Server's WriteTimeout does
// per request (alone, or cleared between requests): a push that finds the
// timer due within half the timeout moves it, so that it never fires,
// where it used to fire once per timeout, ten times, only to find the
// deadline moved. Each fire costs a wake-up of the wheel's driver.
func TestPushedDeadlineSparesTimer(t *testing.T) {
	for _, clear := range []bool{false, true} {
		t.Run(fmt.Sprintf("clear=%v", clear), func(t *testing.T) {
			c, _ := tcpPair(t)
			w := WrapConn(c)
			defer w.Close()
			fired0 := stashtime.Default().Stats().Fired
			start := time.Now()
			for time.Since(start) < time.Second {
				if err := w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
					t.Fatal(err)
				}
				if clear {
					if err := w.SetWriteDeadline(time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				time.Sleep(time.Millisecond)
			}
			// A stall of the loop longer than half the timeout lets
			// the timer fire: allow a few.
			fired := stashtime.Default().Stats().Fired - fired0
			t.Logf("the timer fired %d times", fired)
			if fired > 3 {
				t.Errorf("the timer fired %d times in a second of pushes", fired)
			}
		})
	}
}
