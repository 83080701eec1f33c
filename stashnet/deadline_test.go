package stashnet

import (
	"math"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
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
