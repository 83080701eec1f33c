package stashtime_test

// Stress tests: many goroutines race Stop, Reset and receives on shared
// timers, on the process-wide wheel (real time) and on a manual-clock wheel
// whose clock another goroutine keeps advancing. Checked: exactly once (per
// timer, every arming ends in exactly one received value, one f run, or one
// Stop/Reset that returned true), never early, values are deadlines. Meant
// to run under -race; each test takes a second or two on two cores.

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// A stressTimer is a shared timer with its exactly-once accounts.
type stressTimer struct {
	tm      *stashtime.Timer
	armings atomic.Int64 // 1 + Reset calls
	trues   atomic.Int64 // Stop/Reset calls that returned true
	ends    atomic.Int64 // values received, or runs of f
}

// stressWorkload is what each worker goroutine does to the shared timers.
type stressWorkload struct {
	timers  []*stressTimer
	workers int
	wall    stdtime.Duration // how long the workers race
	dur     func(r *rand.Rand) stdtime.Duration
	now     func() stdtime.Time // the wheel's clock, as a Time
	valid   func(v stdtime.Time) bool
	errs    chan string
}

func (s *stressWorkload) errorf(msg string) {
	select {
	case s.errs <- msg:
	default:
	}
}

// checkValue checks a received value: not after the moment it was
// received (never early), and not before lo.
func (s *stressWorkload) checkValue(v stdtime.Time, lo stdtime.Time) {
	if now := s.now(); v.After(now) {
		s.errorf("value " + v.String() + " received at " + now.String() + ": fired early")
	}
	if v.Before(lo) {
		s.errorf("value " + v.String() + " before the start " + lo.String())
	}
	if s.valid != nil && !s.valid(v) {
		s.errorf("value " + v.String() + " is the deadline of no arming")
	}
}

func (s *stressWorkload) run(seed uint64, lo stdtime.Time) {
	var wg sync.WaitGroup
	for g := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			end := stdtime.Now().Add(s.wall)
			for i := 0; i%64 != 0 || stdtime.Now().Before(end); i++ {
				st := s.timers[r.IntN(len(s.timers))]
				switch op := r.IntN(20); {
				case op == 0:
					// Let timers fire between bursts of operations.
					stdtime.Sleep(stdtime.Duration(r.Int64N(300)) * stdtime.Microsecond)
				case op < 4:
					if st.tm.Stop() {
						st.trues.Add(1)
					}
				case op < 8:
					st.armings.Add(1)
					if st.tm.Reset(s.dur(r)) {
						st.trues.Add(1)
					}
				default:
					if st.tm.C == nil {
						continue
					}
					if v, ok := tryRecv(st.tm.C); ok {
						st.ends.Add(1)
						s.checkValue(v, lo)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// settle stops every timer and checks the accounts. Values still in a
// channel are discarded by the Stop, which then returns true.
//
// With expire (a manual clock), it first moves the clock past every
// deadline and receives what is waiting: then no timer may be pending any
// more (a lost timer would be), so every Stop must return false.
func (s *stressWorkload) settle(t *testing.T, expire, funcsDone func()) {
	t.Helper()
	if expire != nil {
		expire()
		if funcsDone != nil {
			funcsDone()
		}
		for i, st := range s.timers {
			if st.tm.C != nil {
				if _, ok := tryRecv(st.tm.C); ok {
					st.ends.Add(1)
				}
			}
			if st.tm.Stop() {
				st.trues.Add(1)
				t.Errorf("timer %d still pending once every deadline has passed", i)
			}
		}
	}
	for _, st := range s.timers {
		if st.tm.Stop() {
			st.trues.Add(1)
		}
		if st.tm.C != nil {
			mustNotRecv(t, st.tm.C, "after the final Stop")
		}
	}
	if funcsDone != nil {
		funcsDone()
	}
	close(s.errs)
	for e := range s.errs {
		t.Error(e)
	}
	for i, st := range s.timers {
		a, tr, e := st.armings.Load(), st.trues.Load(), st.ends.Load()
		if tr+e != a {
			t.Errorf("timer %d: %d armings but %d true Stop/Reset results + %d values or runs", i, a, tr, e)
		}
	}
}

// stressWall is how long each stress test races: shorter under -short.
func stressWall() stdtime.Duration {
	if testing.Short() {
		return 300 * stdtime.Millisecond
	}
	return stdtime.Second
}

// newStressTimers makes n channel timers and n AfterFunc timers, armed with
// d from dur. The funcs count their runs in ends and in runs.
func newStressTimers(n int, r *rand.Rand, dur func(*rand.Rand) stdtime.Duration,
	newTimer func(stdtime.Duration) *stashtime.Timer,
	afterFunc func(stdtime.Duration, func()) *stashtime.Timer,
	runs *atomic.Int64,
) []*stressTimer {
	ts := make([]*stressTimer, 0, 2*n)
	for range n {
		st := &stressTimer{}
		st.armings.Store(1)
		st.tm = newTimer(dur(r))
		ts = append(ts, st)
	}
	for range n {
		st := &stressTimer{}
		st.armings.Store(1)
		st.tm = afterFunc(dur(r), func() {
			st.ends.Add(1)
			runs.Add(1)
		})
		ts = append(ts, st)
	}
	return ts
}

// quiesce waits until no more f runs come: every f started has counted
// itself within a few milliseconds.
func quiesce(runs *atomic.Int64) {
	for prev := int64(-1); ; {
		stdtime.Sleep(20 * stdtime.Millisecond)
		n := runs.Load()
		if n == prev {
			return
		}
		prev = n
	}
}

// On the process-wide wheel, in real time.
func TestStressDefaultWheel(t *testing.T) {
	r := testRand(t)
	start := stdtime.Now()
	dur := func(r *rand.Rand) stdtime.Duration {
		if r.IntN(20) == 0 {
			return stdtime.Duration(r.Int64N(3)) - 1 // due now
		}
		return stdtime.Duration(r.Int64N(int64(2 * stdtime.Millisecond)))
	}
	var runs atomic.Int64
	s := &stressWorkload{
		timers:  newStressTimers(8, r, dur, stashtime.NewTimer, stashtime.AfterFunc, &runs),
		workers: 8,
		wall:    stressWall(),
		dur:     dur,
		now:     stdtime.Now,
		errs:    make(chan string, 16),
	}
	s.run(r.Uint64(), start)
	s.settle(t, nil, func() { quiesce(&runs) })
	t.Logf("%d f runs; %+v", runs.Load(), stashtime.Default().Stats())
}

// On a manual-clock wheel whose clock one goroutine advances while the
// workers race. The clock moves in whole microseconds and every duration is
// a whole number of microseconds plus 1..999 ns, so every deadline ends in
// 1..999 ns: a value ending in 000 is no deadline (a delivery time, or a
// corrupted value).
func TestStressManualWheel(t *testing.T) {
	cases := []struct {
		name  string
		opts  stashtime.Options
		maxUs int64 // longest duration, in µs
	}{
		{"MaxBatch=default", stashtime.Options{}, 3000},
		{"MaxBatch=2", stashtime.Options{MaxBatch: 2}, 3000},
		// Durations up to 4 spans of the tiny geometry: overflow and
		// revolutions under concurrent Stop and Reset.
		{"tiny_levels", stashtime.Options{Levels: tinyLevels()}, int64(4 * tinySpan / stdtime.Microsecond)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dur := func(r *rand.Rand) stdtime.Duration {
				return stdtime.Duration(r.Int64N(c.maxUs))*stdtime.Microsecond + stdtime.Duration(1+r.Int64N(999))
			}
			stressManual(t, c.opts, dur, stdtime.Duration(c.maxUs+1)*stdtime.Microsecond, stressWall(), c.maxUs/3, nil)
		})
	}
}

// stressManual races the workers over 8 channel timers and 8 AfterFuncs
// with durations from dur on a manual-clock wheel, whose clock another
// goroutine advances by up to maxStepUs µs at a time, for wall; during
// calls between collections, if not nil. Then it settles the accounts.
func stressManual(t *testing.T, opts stashtime.Options, dur func(*rand.Rand) stdtime.Duration,
	maxDur, wall stdtime.Duration, maxStepUs int64, during func(),
) {
	r := testRand(t)
	m := newTestWheel(t, opts)
	var runs atomic.Int64
	s := &stressWorkload{
		timers:  newStressTimers(8, r, dur, m.NewTimer, m.AfterFunc, &runs),
		workers: 6,
		wall:    wall,
		dur:     dur,
		now:     func() stdtime.Time { return at(m.elapsed()) },
		valid:   func(v stdtime.Time) bool { return v.Sub(epoch)%stdtime.Microsecond != 0 },
		errs:    make(chan string, 16),
	}
	ar := rand.New(rand.NewPCG(r.Uint64(), 1))
	stopAdvancing := m.keepAdvancing(func() stdtime.Duration {
		return stdtime.Duration(ar.Int64N(maxStepUs)) * stdtime.Microsecond
	}, 50*stdtime.Microsecond)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for during != nil {
			select {
			case <-quit:
				return
			default:
			}
			during()
		}
	}()
	s.run(r.Uint64(), epoch)
	close(quit)
	<-done
	stopAdvancing()
	s.settle(t, func() { m.advance(maxDur) }, func() { quiesce(&runs) })
	t.Logf("%d f runs; %+v", runs.Load(), m.Stats())
}

// Tickers under concurrent Reset, Stop and receives: no tick is ever
// received before its instant, and after the last Stop none comes.
func TestStressTickers(t *testing.T) {
	r := testRand(t)
	m := newTestWheel(t, stashtime.Options{})
	tks := make([]*stashtime.Ticker, 6)
	for i := range tks {
		tks[i] = m.NewTicker(stdtime.Duration(1+r.Int64N(500)) * stdtime.Microsecond)
	}
	errs := make(chan string, 8)
	ar := rand.New(rand.NewPCG(r.Uint64(), 2))
	stopAdvancing := m.keepAdvancing(func() stdtime.Duration {
		return stdtime.Duration(1+ar.Int64N(300)) * stdtime.Microsecond
	}, 0)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gr := rand.New(rand.NewPCG(uint64(g), 7))
			end := stdtime.Now().Add(stressWall() / 2)
			for i := 0; i%64 != 0 || stdtime.Now().Before(end); i++ {
				tk := tks[gr.IntN(len(tks))]
				switch gr.IntN(12) {
				case 0:
					tk.Stop()
				case 2:
					stdtime.Sleep(100 * stdtime.Microsecond)
				case 1:
					tk.Reset(stdtime.Duration(1+gr.Int64N(500)) * stdtime.Microsecond)
				default:
					if v, ok := tryRecv(tk.C); ok {
						if now := at(m.elapsed()); v.After(now) {
							select {
							case errs <- "tick " + v.Sub(epoch).String() + " received at " + now.Sub(epoch).String():
							default:
							}
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	stopAdvancing()
	for _, tk := range tks {
		tk.Stop()
	}
	m.advance(stdtime.Second)
	for i, tk := range tks {
		mustNotRecv(t, tk.C, fmt.Sprintf("ticker %d after Stop", i))
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A Reset to a later deadline that races the driver firing the old one
// either moves the deadline (returns true; one firing, at the new deadline)
// or comes after the firing (returns false; the old firing and a new one).
// Reset takes no lock on that path once a Reset has opened the entry (see
// entry.unlock), so this checks its hand-over with the driver many times
// over: func timers due in 1 s, and channel timers due in 1.5 s (long
// enough to be listed to be weakened, which opening requires).
func TestStressResetLaterWhileFiring(t *testing.T) {
	w := newTestWheel(t, stashtime.Options{})
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	const lead = 100 * stdtime.Millisecond
	var runs atomic.Int64
	var wantRuns int64
	var outcomes [2]int
	for i := range rounds {
		base := w.elapsed()
		var tm *stashtime.Timer
		d := stdtime.Second
		if i%2 == 0 {
			d = 1500 * stdtime.Millisecond
			tm = w.NewTimer(d)
		} else {
			tm = w.AfterFunc(d, func() { runs.Add(1) })
		}
		if !tm.Reset(d) { // the same deadline: opens the entry
			t.Fatalf("round %d: Reset of a pending timer returned false", i)
		}
		w.advance(d - lead) // the driver files it at its deadline
		// The clock reaches the deadline, and the driver races to fire
		// while Reset, reading the same clock, asks for d more.
		w.clk.Advance(lead)
		for range i % 64 {
			runtime.Gosched()
		}
		moved := tm.Reset(d)
		outcomes[b2i(moved)]++
		w.advance(2 * d)
		if tm.C == nil {
			wantRuns += 2 - int64(b2i(moved))
			waitRuns(t, &runs, wantRuns)
			continue
		}
		var got []stdtime.Time
		for {
			v, ok := tryRecv(tm.C)
			if !ok {
				break
			}
			got = append(got, v)
		}
		// Reset read the clock after the last advance, on this goroutine.
		late := at(base + 2*d)
		switch {
		case moved && len(got) == 1 && got[0] == late:
		case !moved && len(got) == 2 && got[0] == at(base+d) && got[1] == late:
		default:
			t.Fatalf("round %d: Reset returned %v, then values %v (deadline %v)", i, moved, got, at(base+d))
		}
	}
	stdtime.Sleep(50 * stdtime.Millisecond) // an extra run would show by now
	if got := runs.Load(); got != wantRuns {
		t.Fatalf("AfterFunc timers ran %d times, want %d", got, wantRuns)
	}
	t.Logf("Reset moved the deadline in %d rounds, came after the firing in %d", outcomes[1], outcomes[0])
}

// Like TestStressManualWheel, but the channel timers are long (beyond
// weakBeyond), so that the intake lists them to be weakened and
// collections, run all the while, weaken them, and Reset to a later
// deadline takes its lock-free path on channel timers too.
func TestStressOpenChanTimers(t *testing.T) {
	dur := func(r *rand.Rand) stdtime.Duration {
		if r.IntN(10) == 0 {
			return stdtime.Duration(r.Int64N(3000))*stdtime.Microsecond + stdtime.Duration(1+r.Int64N(999))
		}
		return stdtime.Duration(1100_000+r.Int64N(2_000_000))*stdtime.Microsecond + stdtime.Duration(1+r.Int64N(999))
	}
	collect := func() {
		runtime.GC()
		stdtime.Sleep(2 * stdtime.Millisecond)
	}
	for _, opts := range []stashtime.Options{{}, {MaxBatch: 2}} {
		t.Run(fmt.Sprintf("MaxBatch=%d", opts.MaxBatch), func(t *testing.T) {
			stressManual(t, opts, dur, 3101*stdtime.Millisecond, 2*stressWall(), 400_000, collect)
		})
	}
}

// waitRuns waits until runs reaches n: f runs in its own goroutine, after
// Sync returns.
func waitRuns(t *testing.T, runs *atomic.Int64, n int64) {
	t.Helper()
	deadline := stdtime.Now().Add(5 * stdtime.Second)
	for runs.Load() < n {
		if stdtime.Now().After(deadline) {
			t.Fatalf("AfterFunc runs: %d after 5 s, want %d", runs.Load(), n)
		}
		stdtime.Sleep(10 * stdtime.Microsecond)
	}
}
