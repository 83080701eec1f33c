package stashtime_test

// Rules 3, 4 and 8 for deadlines far beyond the store's span: with a tiny
// geometry (span about 67 ms) timers at many multiples of the span go
// through the overflow area and many revolutions, and still fire exactly
// once, exactly at their deadlines.

import (
	"fmt"
	"slices"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// Timers at k spans plus small offsets (on, just before and just after
// revolution boundaries), armed at once and out of order; the clock moves in
// random steps, some longer than the span. Each step fires exactly the
// timers whose deadlines it reached, each with its deadline.
func TestConformanceLongDurations(t *testing.T) {
	for _, batch := range []int{0, 2} {
		t.Run(fmt.Sprintf("MaxBatch=%d", batch), func(t *testing.T) {
			r := testRand(t)
			m := newTestWheel(t, stashtime.Options{Levels: tinyLevels(), MaxBatch: batch})
			m.advance(stdtime.Duration(r.Int64N(int64(tinySpan))))
			start := m.elapsed()
			type tmr struct {
				tm  *stashtime.Timer
				due stdtime.Duration // absolute reading
				got bool
			}
			var ts []*tmr
			offsets := []stdtime.Duration{-bucketNs, -1, 0, 1, bucketNs, tinySpan / 2}
			for k := 0; k <= 60; k++ {
				for _, off := range offsets {
					d := stdtime.Duration(k)*tinySpan + off
					if d <= 0 {
						continue
					}
					ts = append(ts, &tmr{due: start + d})
				}
			}
			r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			for _, x := range ts {
				x.tm = m.NewTimer(x.due - start)
			}
			if st := m.Stats(); st.Overflow == 0 {
				t.Log("note: nothing went to the overflow area")
			}
			last := slices.MaxFunc(ts, func(a, b *tmr) int { return int(a.due - b.due) }).due
			for m.elapsed() <= last {
				m.advance(stdtime.Duration(r.Int64N(int64(3 * tinySpan / 2))))
				n := m.elapsed()
				for _, x := range ts {
					v, ok := tryRecv(x.tm.C)
					switch {
					case ok && x.got:
						t.Fatalf("timer due at %v fired twice", x.due)
					case ok && x.due > n:
						t.Fatalf("timer due at %v fired early, at %v", x.due, n)
					case ok && !v.Equal(at(x.due)):
						t.Fatalf("timer due at %v sent %v", x.due, v.Sub(epoch))
					case !ok && !x.got && x.due <= n:
						t.Fatalf("timer due at %v not fired at %v (%+v)", x.due, n, m.Stats())
					}
					x.got = x.got || ok
				}
			}
			if st := m.Stats(); st.Live != 0 || st.Overflow != 0 {
				t.Fatalf("after every deadline: %+v", st)
			}
		})
	}
}

// Random Reset sequences on timers far beyond the span: each arming fires
// exactly once at its deadline, resets in both directions, across
// revolutions, and AfterFuncs the same.
func TestConformanceLongDurationResets(t *testing.T) {
	r := testRand(t)
	m := newTestWheel(t, stashtime.Options{Levels: tinyLevels()})
	const n = 40
	type tmr struct {
		tm   *stashtime.Timer
		due  stdtime.Duration
		runs chan stdtime.Duration
	}
	ts := make([]*tmr, n)
	randD := func() stdtime.Duration {
		return 1 + stdtime.Duration(r.Int64N(int64(25*tinySpan)))
	}
	for i := range ts {
		x := &tmr{}
		x.due = m.elapsed() + randD()
		if i%2 == 0 {
			x.tm = m.NewTimer(x.due - m.elapsed())
		} else {
			x.runs = make(chan stdtime.Duration, 4)
			x.tm = m.AfterFunc(x.due-m.elapsed(), func() { x.runs <- m.elapsed() })
		}
		ts[i] = x
	}
	fired := 0
	for round := 0; fired < 3*n && round < heavy(2000); round++ {
		// Reset a few (pending or not).
		for range r.IntN(4) {
			x := ts[r.IntN(n)]
			d := randD()
			x.tm.Reset(d)
			if x.runs == nil {
				mustNotRecv(t, x.tm.C, "after Reset")
			}
			x.due = m.elapsed() + d
		}
		m.advance(stdtime.Duration(r.Int64N(int64(2 * tinySpan))))
		now := m.elapsed()
		for _, x := range ts {
			if x.runs == nil {
				v, ok := tryRecv(x.tm.C)
				if ok != (x.due <= now) && x.due != -1 {
					t.Fatalf("round %d: timer due at %v: fired=%v at %v", round, x.due, ok, now)
				}
				if ok {
					if !v.Equal(at(x.due)) {
						t.Fatalf("timer due at %v sent %v", x.due, v.Sub(epoch))
					}
					fired++
					x.due = -1
				}
				if x.due == -1 {
					// Re-arm with a fresh far deadline; nothing must be pending.
					d := randD()
					if x.tm.Reset(d) {
						t.Fatal("Reset after the value was received = true")
					}
					x.due = now + d
				}
				continue
			}
			if x.due <= now {
				got := waitChan(t, x.runs, fmt.Sprintf("f due at %v", x.due))
				if got < x.due {
					t.Fatalf("f due at %v ran at %v", x.due, got)
				}
				fired++
				d := randD()
				if x.tm.Reset(d) {
					t.Fatal("Reset of a fired AfterFunc = true")
				}
				x.due = now + d
			}
		}
	}
	stdtime.Sleep(2 * stdtime.Millisecond)
	for _, x := range ts {
		if len(x.runs) != 0 {
			t.Fatalf("f ran more than once for an arming (due %v)", x.due)
		}
		x.tm.Stop()
	}
}

// Far timers (beyond the span of the tiny geometry, so they wait in the
// overflow area) fire by the time Sync returns after the clock reaches
// them, whatever the phase of their deadline against the store's buckets.
// Many rounds, because whether a pass meets such a timer depends on how the
// driver's own wake-ups interleave with Sync.
func TestConformanceFarTimerFiresBySync(t *testing.T) {
	r := testRand(t)
	for round := range heavy(80) {
		m := newTestWheel(t, stashtime.Options{Levels: tinyLevels()})
		p := tinySpan + stdtime.Duration(r.Int64N(int64(2*tinySpan)))
		tk := m.NewTicker(p)
		tm := m.NewTimer(p)
		for k := 1; k <= 15; k++ {
			m.advance(p)
			mustRecv(t, tk.C, at(stdtime.Duration(k)*p), fmt.Sprintf("round %d, period %v: tick %d", round, p, k))
			mustRecv(t, tm.C, at(stdtime.Duration(k)*p), fmt.Sprintf("round %d, d %v: timer reset %d times", round, p, k-1))
			tm.Reset(p)
		}
		tk.Stop()
		tm.Stop()
	}
}
