package stashtime_test

// Rules 3-6 of docs/semantics.md: deadlines, never early, deadline order,
// the value sent is the deadline, d <= 0 is due now, overflow clamps.

import (
	"fmt"
	"math"
	"sync"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// A timer fires exactly at its deadline on the wheel's clock: not one
// nanosecond before, and as soon as the clock reaches it.
func TestConformanceNeverEarly(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	ds := []stdtime.Duration{
		1, 2, 999, stdtime.Microsecond, bucketNs - 1, bucketNs, bucketNs + 1,
		3*bucketNs + 17, 10 * stdtime.Millisecond, stdtime.Second, stdtime.Hour,
		49 * 24 * stdtime.Hour,
	}
	// Start the clock off a bucket boundary so that deadlines are too.
	m.advance(12345)
	for _, d := range ds {
		start := m.elapsed()
		tm := m.NewTimer(d)
		if d > 1 {
			m.advance(d - 1)
			mustNotRecv(t, tm.C, fmt.Sprintf("d=%v at d-1ns", d))
		}
		m.advance(d - (m.elapsed() - start))
		mustRecv(t, tm.C, at(start+d), fmt.Sprintf("d=%v at d", d))
	}
}

// The value sent on C is the deadline, not the moment of delivery or of the
// receive: a receiver that reads late, or a wheel that fires late, still
// sees the scheduled instant.
func TestConformanceValueIsDeadline(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	a := m.NewTimer(3 * stdtime.Millisecond)
	b := m.NewTimer(stdtime.Hour)
	c := m.After(90 * stdtime.Second)
	// The wheel sees the clock only after a 2-hour jump: all three are late.
	m.advance(2 * stdtime.Hour)
	mustRecv(t, b.C, at(stdtime.Hour), "timer read 1h late")
	m.advance(stdtime.Minute)
	mustRecv(t, a.C, at(3*stdtime.Millisecond), "timer read 2h late")
	mustRecv(t, c, at(90*stdtime.Second), "After read 2h late")
}

// With the system clock the value carries a monotonic reading, lies at or
// after the call plus d, and the receive is no earlier than it.
func TestConformanceValueIsDeadlineReal(t *testing.T) {
	const d = 3 * stdtime.Millisecond
	for i := 0; i < 5; i++ {
		start := stdtime.Now()
		tm := stashtime.NewTimer(d)
		stdtime.Sleep(20 * stdtime.Millisecond) // read late
		v := <-tm.C
		got := stdtime.Now()
		if v == v.Round(0) {
			t.Fatalf("value %v has no monotonic reading", v)
		}
		if v.Sub(start) < d {
			t.Fatalf("value %v is %v after the call, want >= %v", v, v.Sub(start), d)
		}
		// The deadline, not the delivery: well before the late receive.
		if late := got.Sub(v); late < 10*stdtime.Millisecond {
			t.Fatalf("value is only %v before a receive 20ms after the call: it is not the deadline", late)
		}
		if v.Sub(start) > d+stdtime.Second {
			t.Fatalf("value %v is %v after the call", v, v.Sub(start))
		}
	}
}

// firingLog records, for deadline-order tests, what each AfterFunc saw when
// it ran: which channel timers had already fired. The driver fires in one
// goroutine, so when f of a func timer due at d runs, every channel timer due
// before d must already hold its value.
type orderProbe struct {
	m      *manualWheel
	ds     []stdtime.Duration // deadline of timer i, relative to start
	isFunc []bool
	timers []*stashtime.Timer
	seen   [][]bool // seen[i][j]: channel timer j had fired when f_i ran
	wg     sync.WaitGroup
}

// arm creates the timers, in the given order of indices, all from the same
// clock reading.
func (p *orderProbe) arm(order []int) {
	p.timers = make([]*stashtime.Timer, len(p.ds))
	p.seen = make([][]bool, len(p.ds))
	for _, i := range order {
		if !p.isFunc[i] {
			p.timers[i] = p.m.NewTimer(p.ds[i])
			continue
		}
		p.wg.Add(1)
		p.timers[i] = p.m.AfterFunc(p.ds[i], func() {
			defer p.wg.Done()
			s := make([]bool, len(p.ds))
			for j, tm := range p.timers {
				if !p.isFunc[j] {
					s[j] = len(tm.C) == 1
				}
			}
			p.seen[i] = s
		})
	}
}

// check waits for every f and checks order and values; start is the clock
// reading when the timers were armed.
func (p *orderProbe) check(t *testing.T, start stdtime.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	waitChan(t, done, "AfterFuncs of the order probe")
	for i := range p.ds {
		if p.isFunc[i] {
			for j := range p.ds {
				if !p.isFunc[j] && p.ds[j] < p.ds[i] && !p.seen[i][j] {
					t.Errorf("AfterFunc due at %v ran before the channel timer due at %v had fired",
						p.ds[i], p.ds[j])
				}
			}
			continue
		}
		mustRecv(t, p.timers[i].C, at(start+p.ds[i]), fmt.Sprintf("channel timer due at %v", p.ds[i]))
	}
}

// Timers with distinct deadlines fire in deadline order, whether the
// deadlines share a bucket of the store (where it keeps insertion order) or
// not, when the clock passes all of them at once, and whatever the driver's
// batch size.
func TestConformanceDeadlineOrder(t *testing.T) {
	layouts := map[string]func(i int) stdtime.Duration{
		// 40 deadlines 20 µs apart, all in the bucket [bucket, 2*bucket).
		"one_bucket": func(i int) stdtime.Duration {
			return bucketNs + 100*stdtime.Microsecond + stdtime.Duration(i)*20*stdtime.Microsecond
		},
		// 40 deadlines 0.7 buckets apart: most buckets hold one or two.
		"across_buckets": func(i int) stdtime.Duration { return 700*stdtime.Microsecond + stdtime.Duration(i)*bucketNs*7/10 },
		// Deadlines spread over hours: several levels of the store.
		"across_levels": func(i int) stdtime.Duration { return stdtime.Duration(i*i*i) * 37 * stdtime.Second / 10 },
	}
	for name, layout := range layouts {
		for _, batch := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%s/MaxBatch=%d", name, batch), func(t *testing.T) {
				r := testRand(t)
				m := newTestWheel(t, stashtime.Options{MaxBatch: batch})
				m.advance(stdtime.Duration(r.Int64N(int64(bucketNs))))
				const n = 40
				p := &orderProbe{m: m, ds: make([]stdtime.Duration, n), isFunc: make([]bool, n)}
				for i := range n {
					p.ds[i] = layout(i) + 1
					p.isFunc[i] = r.IntN(2) == 0
				}
				start := m.elapsed()
				// Insert in reverse, then at random: the store's insertion
				// order must not leak into the firing order.
				order := make([]int, n)
				for i := range order {
					order[i] = n - 1 - i
				}
				if r.IntN(2) == 0 {
					r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
				}
				p.arm(order)
				m.advance(p.ds[n-1] + stdtime.Hour)
				p.check(t, start)
			})
		}
	}
}

// A timer that was collected into the driver's near heap (it was due later
// in the bucket the clock had reached) still fires before timers due in
// later buckets when the clock then jumps past all of them.
func TestConformanceDeadlineOrderNearHeap(t *testing.T) {
	for _, batch := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("MaxBatch=%d", batch), func(t *testing.T) {
			m := newTestWheel(t, stashtime.Options{MaxBatch: batch})
			// The clock stops half-way through the first bucket, where the
			// driver sees the early timers and parks them in its near heap.
			ds := []stdtime.Duration{600 * stdtime.Microsecond, 700 * stdtime.Microsecond, 800 * stdtime.Microsecond}
			for i := range 12 {
				ds = append(ds, 2*bucketNs+stdtime.Duration(i)*stdtime.Microsecond)
			}
			p := &orderProbe{m: m, ds: ds, isFunc: make([]bool, len(ds))}
			for i := range ds {
				p.isFunc[i] = i%2 == 1 || i < 3 && i != 0
			}
			order := make([]int, len(ds))
			for i := range order {
				order[i] = len(ds) - 1 - i
			}
			p.arm(order)
			m.advance(500 * stdtime.Microsecond)
			for i := range ds {
				if !p.isFunc[i] {
					mustNotRecv(t, p.timers[i].C, "before any deadline")
				}
			}
			m.advance(5 * bucketNs)
			p.check(t, 0)
		})
	}
}

// d <= 0 means due now: a channel timer's value is receivable before
// NewTimer (or Reset) returns, and it is the instant of the call; an
// AfterFunc's f starts before AfterFunc (or Reset) returns.
func TestConformanceNonPositiveDuration(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	m.advance(stdtime.Duration(7*bucketNs + 3))
	now := at(m.elapsed())
	for _, d := range []stdtime.Duration{0, -1, -stdtime.Hour, math.MinInt64} {
		tm := m.NewTimer(d)
		mustRecv(t, tm.C, now, fmt.Sprintf("NewTimer(%v)", d))
		mustRecv(t, m.After(d), now, fmt.Sprintf("After(%v)", d))

		// Reset to d <= 0 of a pending timer: same, at once.
		tm = m.NewTimer(stdtime.Hour)
		if !tm.Reset(d) {
			t.Fatalf("Reset(%v) of a pending timer = false", d)
		}
		mustRecv(t, tm.C, now, fmt.Sprintf("Reset(%v)", d))
		// And of an expired one whose value was received.
		if tm.Reset(d) {
			t.Fatalf("Reset(%v) of a received timer = true", d)
		}
		mustRecv(t, tm.C, now, fmt.Sprintf("second Reset(%v)", d))

		// AfterFunc: f has started when the call returns, with no pass
		// of the driver (no Sync), so Stop finds the timer fired.
		ran := make(chan struct{}, 1)
		ft := m.AfterFunc(d, func() { ran <- struct{}{} })
		if ft.Stop() {
			t.Fatalf("Stop after AfterFunc(%v) = true", d)
		}
		waitChan(t, ran, fmt.Sprintf("AfterFunc(%v)", d))
		// Reset to d <= 0 of a pending one: the same, and it reports
		// the timer was pending.
		ft = m.AfterFunc(stdtime.Hour, func() { ran <- struct{}{} })
		if !ft.Reset(d) {
			t.Fatalf("Reset(%v) of a pending AfterFunc timer = false", d)
		}
		if ft.Stop() {
			t.Fatalf("Stop after Reset(%v) of an AfterFunc timer = true", d)
		}
		waitChan(t, ran, fmt.Sprintf("AfterFunc timer Reset(%v)", d))
	}
	// Nothing armed for d <= 0 fires again later.
	tm := m.NewTimer(0)
	<-tm.C
	m.advance(stdtime.Hour)
	mustNotRecv(t, tm.C, "NewTimer(0) an hour later")
	if st := m.Stats(); st.Live != 0 {
		t.Fatalf("Stats().Live = %d after every d <= 0 timer fired", st.Live)
	}
}

// With the system clock and the process-wide wheel as well: NewTimer(0) is
// receivable at once and After(math.MinInt64) fires.
func TestConformanceNonPositiveDurationReal(t *testing.T) {
	before := stdtime.Now()
	tm := stashtime.NewTimer(0)
	select {
	case v := <-tm.C:
		if v.Before(before.Add(-stdtime.Millisecond)) || v.After(stdtime.Now()) {
			t.Fatalf("NewTimer(0) sent %v, called at %v", v, before)
		}
	default:
		t.Fatal("NewTimer(0): no value when NewTimer returned")
	}
	select {
	case <-stashtime.After(math.MinInt64):
	case <-stdtime.After(stdtime.Second):
		t.Fatal("After(math.MinInt64) did not fire within 1s")
	}
	ran := make(chan struct{})
	stashtime.AfterFunc(-stdtime.Second, func() { close(ran) })
	select {
	case <-ran:
	case <-stdtime.After(stdtime.Second):
		t.Fatal("AfterFunc(-1s) did not run within 1s")
	}
}

// A deadline past the end of int64 clamps to math.MaxInt64: it never fires,
// it does not wrap around into the past, and it disturbs no other timer.
func TestConformanceOverflowClamps(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	m.advance(3*stdtime.Hour + 5)
	never := []*stashtime.Timer{
		m.NewTimer(math.MaxInt64),
		m.NewTimer(math.MaxInt64 - stdtime.Hour), // now + d overflows too
		m.AfterFunc(math.MaxInt64, func() { panic("AfterFunc(MaxInt64) fired") }),
	}
	never[2].Reset(math.MaxInt64 - 1)
	c := m.After(math.MaxInt64)
	tk := m.NewTicker(math.MaxInt64)

	// Ordinary timers around them fire as usual, in order, on time.
	start := m.elapsed()
	p := &orderProbe{m: m, isFunc: []bool{false, true, false, true, false}}
	p.ds = []stdtime.Duration{stdtime.Millisecond, 2 * stdtime.Millisecond, stdtime.Minute, stdtime.Hour, 200 * 24 * stdtime.Hour}
	p.arm([]int{4, 3, 2, 1, 0})
	for _, d := range p.ds {
		m.advance(d - (m.elapsed() - start))
	}
	p.check(t, start)

	// A hundred years on, the clamped ones are still pending.
	for range 100 {
		m.advance(365 * 24 * stdtime.Hour)
	}
	for i, tm := range never[:2] {
		mustNotRecv(t, tm.C, fmt.Sprintf("clamped timer %d", i))
	}
	mustNotRecv(t, c, "After(MaxInt64)")
	mustNotRecv(t, tk.C, "NewTicker(MaxInt64)")
	for i, tm := range never {
		if !tm.Stop() {
			t.Errorf("Stop of clamped timer %d = false, want true (still pending)", i)
		}
	}
	tk.Stop()
	// A reset from the clamp to a near deadline works.
	tm := never[0]
	tm.Reset(stdtime.Millisecond)
	m.advance(stdtime.Millisecond)
	mustRecv(t, tm.C, at(m.elapsed()), "reset from a clamped deadline")
}

// After(MaxInt64) with the process-wide wheel does not keep other timers
// from firing on time.
func TestConformanceOverflowClampsReal(t *testing.T) {
	_ = stashtime.After(math.MaxInt64)
	keep := stashtime.NewTimer(math.MaxInt64)
	defer keep.Stop()
	start := stdtime.Now()
	v := <-stashtime.After(2 * stdtime.Millisecond)
	if el := stdtime.Since(start); el < 2*stdtime.Millisecond || el > stdtime.Second {
		t.Fatalf("a 2ms timer beside After(MaxInt64) fired after %v", el)
	}
	if v.Sub(start) < 2*stdtime.Millisecond {
		t.Fatalf("value %v is early", v.Sub(start))
	}
	select {
	case <-keep.C:
		t.Fatal("NewTimer(MaxInt64) fired")
	default:
	}
}
