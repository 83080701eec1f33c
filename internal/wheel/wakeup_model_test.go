package wheel

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestWakeModel is a randomized model test of the wake-up rule (see
// wakeup.go) on a manual clock. It mixes NewTimer, AfterFunc (some of whose
// callbacks re-arm their timer), NewTicker and Sleep, Reset earlier and
// later, and Stop, at distances from a microsecond to hours, and steps the
// clock at random. After each step it lets the driver settle by itself
// (no Sync, which would wake it: see settlePoller) and checks that every
// timer whose deadline plus slack has passed has fired exactly once, and
// none before its deadline.
func TestWakeModel(t *testing.T) {
	// A lost wake-up shows only over seconds of the clock, which takes a
	// few hundred steps; under the race detector, fewer cases.
	setFlag(t, "rapid.steps", "300")
	if raceEnabled || testing.Short() {
		setFlag(t, "rapid.checks", "25")
	}
	rapid.Check(t, func(rt *rapid.T) {
		m := newWakeModel(t)
		defer m.close()
		advance := func(rt *rapid.T) {
			m.advance(rt, drawStep(rt))
			m.check(rt)
		}
		rt.Repeat(map[string]func(*rapid.T){
			"advance":  advance,
			"advance2": advance, // as often as the rest together
			"advance3": advance,
			"advance4": advance,
			"advance5": advance,
			"newTimer": func(rt *rapid.T) { m.newTimer(rt, drawDistance(rt, "d")) },
			"afterFunc": func(rt *rapid.T) {
				m.afterFunc(rt, drawDistance(rt, "d"), rapid.IntRange(0, 2).Draw(rt, "rearms"))
			},
			"newTicker": func(rt *rapid.T) {
				m.newTicker(rt, max(drawDistance(rt, "period")%time.Second, 50*time.Microsecond))
			},
			"sleep": func(rt *rapid.T) { m.sleep(drawDistance(rt, "d")) },
			"reset": func(rt *rapid.T) {
				if len(m.timers) > 0 {
					m.reset(rt, rapid.IntRange(0, len(m.timers)-1).Draw(rt, "i"), drawDistance(rt, "d"))
				}
			},
			"stop": func(rt *rapid.T) {
				if len(m.timers) > 0 {
					m.stop(rt, rapid.IntRange(0, len(m.timers)-1).Draw(rt, "i"))
				}
			},
		})
	})
}

// setFlag sets a flag the command line left at its default, for the
// test.
func setFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	if f == nil || f.Value.String() != f.DefValue {
		return
	}
	require.NoError(t, f.Value.Set(value))
	t.Cleanup(func() { f.Value.Set(f.DefValue) })
}

// drawDistance draws a duration spread evenly over the powers of two from
// 1 µs to 134 ms or, as often, from there to about 8.6 s; now and then up
// to about 2.4 hours, zero or negative. (rapid draws small values more
// often than large ones, which would keep the timers near: the magnitudes
// come from a generator that rapid seeds.)
func drawDistance(rt *rapid.T, label string) time.Duration {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, label), 0))
	switch r.IntN(20) {
	case 0:
		return -time.Duration(r.Int64N(1000))
	case 1:
		return time.Duration(r.Int64N(int64(150 * time.Minute)))
	}
	lo, hi := 10, 27 // from a microsecond to 134 ms
	if r.IntN(2) == 0 {
		lo, hi = 28, 33 // from 134 ms to 8.6 s: far timers and their grains
	}
	exp := lo + r.IntN(hi-lo+1)
	return time.Duration(1<<(exp-1) + r.Int64N(1<<(exp-1)))
}

// drawStep draws how far to advance the clock: mostly from 16 µs to a
// quarter second, so that the driver meets its timers across many steps,
// now and then up to hours.
func drawStep(rt *rapid.T) time.Duration {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "step"), 0))
	lo, hi := 14, 28
	if r.IntN(10) == 0 {
		lo, hi = 10, 43
	}
	exp := lo + r.IntN(hi-lo+1)
	return time.Duration(1<<(exp-1) + r.Int64N(1<<(exp-1)))
}

// A wakeModel is a wheel on a settlePoller and what its timers must do.
type wakeModel struct {
	t   testing.TB
	w   *Wheel
	sp  *settlePoller
	clk *ManualClock

	mu       sync.Mutex // guards the model's state that callbacks change
	closing  bool       // callbacks re-arm no more
	timers   []*modelTimer
	sleepers []*modelSleeper
}

type modelTimer struct {
	name   string
	kind   timerKind
	tm     *Timer
	tk     *Ticker
	armed  bool
	when   int64 // deadline of the current arming (a ticker: its next tick at the earliest)
	latest int64 // when plus its slack: fired by then
	period int64
	rearms int // callbacks left that re-arm
	runs   int // callbacks run for the current arming, or ticks received since
	// inFlight is set when Stop or Reset found an AfterFunc timer fired
	// whose callback the model has not yet seen run.
	inFlight int
}

type modelSleeper struct {
	name          string
	when, latest  int64
	done          chan int64 // the clock when Sleep returned
	returned      bool
	returnedClock int64
}

func newWakeModel(t testing.TB) *wakeModel {
	w, sp, clk := newSettleWheel(t, Options{})
	return &wakeModel{t: t, w: w, sp: sp, clk: clk}
}

func (m *wakeModel) close() {
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	for _, mt := range m.timers {
		if mt.tm != nil {
			mt.tm.Stop()
		} else {
			mt.tk.Stop()
		}
	}
	// Let the sleepers return.
	m.clk.Advance(time.Duration(math.MaxInt64/2 - m.clk.Now()))
	m.w.Sync()
	for _, s := range m.sleepers {
		if !s.returned {
			<-s.done
		}
	}
	m.w.Close()
}

func (m *wakeModel) latest(now, when int64) int64 { return addSat(when, m.w.slack(when-now)) }

func (m *wakeModel) newTimer(rt *rapid.T, d time.Duration) {
	now := m.clk.Now()
	mt := &modelTimer{name: fmt.Sprintf("timer %d (NewTimer(%v) at %v)", len(m.timers), d, time.Duration(now)), kind: kindChan}
	mt.tm = m.w.NewTimer(d)
	mt.armed, mt.when = true, deadline(now, d)
	mt.latest = m.latest(now, mt.when)
	m.mu.Lock()
	m.timers = append(m.timers, mt)
	m.mu.Unlock()
}

func (m *wakeModel) afterFunc(rt *rapid.T, d time.Duration, rearms int) {
	now := m.clk.Now()
	mt := &modelTimer{name: fmt.Sprintf("timer %d (AfterFunc(%v) at %v)", len(m.timers), d, time.Duration(now)), kind: kindFunc, rearms: rearms}
	again := drawDistance(rt, "rearm")
	m.mu.Lock()
	defer m.mu.Unlock()
	mt.armed, mt.when = true, deadline(now, d)
	mt.latest = m.latest(now, mt.when)
	mt.tm = m.w.AfterFunc(d, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		at := m.clk.Now()
		switch {
		case mt.inFlight > 0:
			mt.inFlight--
			return
		case !mt.armed:
			m.t.Errorf("%s ran while not armed, at %v", mt.name, time.Duration(at))
			return
		case at < mt.when:
			m.t.Errorf("%s ran at %v, before its deadline %v", mt.name, time.Duration(at), time.Duration(mt.when))
		}
		mt.runs++
		mt.armed = false
		if mt.rearms > 0 && !m.closing {
			mt.rearms--
			mt.runs = 0
			mt.armed, mt.when = true, deadline(at, again)
			mt.latest = m.latest(at, mt.when)
			mt.tm.Reset(again)
		}
	})
	m.timers = append(m.timers, mt)
}

func (m *wakeModel) newTicker(rt *rapid.T, period time.Duration) {
	now := m.clk.Now()
	mt := &modelTimer{name: fmt.Sprintf("ticker %d (NewTicker(%v) at %v)", len(m.timers), period, time.Duration(now)), kind: kindTicker}
	mt.tk = m.w.NewTicker(period)
	mt.armed, mt.period, mt.when = true, int64(period), deadline(now, period)
	mt.latest = m.latest(now, mt.when)
	m.mu.Lock()
	m.timers = append(m.timers, mt)
	m.mu.Unlock()
}

func (m *wakeModel) sleep(d time.Duration) {
	now := m.clk.Now()
	s := &modelSleeper{name: fmt.Sprintf("Sleep(%v) at %v", d, time.Duration(now)), when: deadline(now, d), done: make(chan int64, 1)}
	s.latest = m.latest(now, s.when)
	m.sleepers = append(m.sleepers, s)
	if d <= 0 {
		s.returned, s.returnedClock = true, now
		m.w.Sleep(d)
		return
	}
	// The sleeper arms its timer in its own goroutine, which must do so
	// before the clock moves. Once every callback due has run, nothing
	// but the sleeper arms a timer, so the live count tells.
	m.w.Sync()
	m.awaitCallbacks(now)
	before := m.w.Live()
	go func() {
		m.w.Sleep(d)
		s.done <- m.clk.Now()
	}()
	require.True(m.t, waitCond(func() bool { return m.w.Live() > before }), "the sleeper did not arm its timer")
}

// awaitCallbacks waits until the callback of every AfterFunc timer due by
// now has run: the driver has fired them (Sync).
func (m *wakeModel) awaitCallbacks(now int64) {
	for _, mt := range m.timers {
		if mt.kind != kindFunc {
			continue
		}
		ok := waitCond(func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			return (!mt.armed || mt.when > now) && mt.inFlight == 0
		})
		require.True(m.t, ok, "%s: its callback did not run", mt.name)
	}
}

func (m *wakeModel) reset(rt *rapid.T, i int, d time.Duration) {
	mt := m.timers[i]
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	if mt.kind == kindTicker {
		if d <= 0 {
			d = time.Microsecond
		}
		mt.tk.Reset(d)
		m.drainTicks(mt)
		mt.armed, mt.period, mt.when = true, int64(d), deadline(now, d)
		mt.latest = m.latest(now, mt.when)
		return
	}
	was := mt.tm.Reset(d)
	m.stopped(rt, mt, was, now)
	mt.armed, mt.when, mt.runs = true, deadline(now, d), 0
	mt.latest = m.latest(now, mt.when)
	if mt.kind == kindChan && d <= 0 {
		mt.latest = now
	}
}

func (m *wakeModel) stop(rt *rapid.T, i int) {
	mt := m.timers[i]
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	if mt.kind == kindTicker {
		mt.tk.Stop()
		m.drainTicks(mt)
		mt.armed = false
		return
	}
	m.stopped(rt, mt, mt.tm.Stop(), now)
	mt.armed = false
}

// stopped checks what Stop or Reset reported, was, against the model at
// now. m.mu is held.
func (m *wakeModel) stopped(rt *rapid.T, mt *modelTimer, was bool, now int64) {
	switch mt.kind {
	case kindChan:
		// The value is discarded; whether there was one, the model
		// checks at each step, so here only: a timer not yet due is
		// still pending.
		if mt.armed && now < mt.when && !was {
			rt.Fatalf("%s: Stop or Reset at %v found it not pending before its deadline %v", mt.name, time.Duration(now), time.Duration(mt.when))
		}
	case kindFunc:
		switch {
		case mt.armed && !was:
			// Fired, and its callback has not yet run: it will find
			// the timer re-armed or stopped, and must count for
			// nothing then.
			if now < mt.when {
				rt.Fatalf("%s fired before its deadline %v (Stop at %v found it fired)", mt.name, time.Duration(mt.when), time.Duration(now))
			}
			mt.inFlight++
		case !mt.armed && was:
			rt.Fatalf("%s: Stop or Reset reported it pending, but it had run", mt.name)
		}
	}
}

// drainTicks takes a tick waiting in a ticker's channel. m.mu is held.
func (m *wakeModel) drainTicks(mt *modelTimer) {
	select {
	case <-mt.tk.C:
	default:
	}
}

func (m *wakeModel) advance(rt *rapid.T, step time.Duration) {
	if step <= 0 {
		step = time.Nanosecond
	}
	m.w.Sync() // no wake-up pending from the steps before: the driver is on its own
	// A callback that re-arms reads the clock and calls Reset under m.mu;
	// the clock must not move between the two, or the wheel's deadline
	// is later than the model's.
	m.mu.Lock()
	m.clk.Advance(step)
	m.mu.Unlock()
	m.sp.settle(m.t)
}

// check compares the wheel with the model, once the driver has settled at
// the clock reading now: every timer due by now less its slack has fired
// once, none before its deadline.
func (m *wakeModel) check(rt *rapid.T) {
	now := m.clk.Now()
	var funcsDue []*modelTimer
	m.mu.Lock()
	for _, mt := range m.timers {
		switch mt.kind {
		case kindChan:
			select {
			case v := <-mt.tm.C:
				if !mt.armed {
					rt.Fatalf("%s delivered %v, not armed", mt.name, v)
				}
				if got := m.clk.Time(mt.when); !v.Equal(got) {
					rt.Fatalf("%s delivered %v, want its deadline %v", mt.name, v, got)
				}
				if now < mt.when {
					rt.Fatalf("%s fired before its deadline %v, at %v or earlier", mt.name, time.Duration(mt.when), time.Duration(now))
				}
				mt.armed = false
			default:
				if mt.armed && mt.latest <= now {
					rt.Fatalf("%s, due at %v (by %v at the latest), has not fired at %v: the driver sleeps to %v",
						mt.name, time.Duration(mt.when), time.Duration(mt.latest), time.Duration(now), time.Duration(m.sp.deadline))
				}
			}
		case kindTicker:
			if !mt.armed {
				continue
			}
			select {
			case v := <-mt.tk.C:
				at := int64(v.Sub(m.clk.Time(0)))
				if at < mt.when || at > now {
					rt.Fatalf("%s ticked %v, outside [%v, %v]", mt.name, time.Duration(at), time.Duration(mt.when), time.Duration(now))
				}
				// The value is the tick fired; the next is the first
				// tick after that firing, which came by now.
				mt.when = at + mt.period
				mt.latest = addSat(nextTick(at, mt.period, now), m.w.maxSlack)
			default:
				if mt.latest <= now {
					rt.Fatalf("%s, due to tick at %v (by %v), has not at %v: the driver sleeps to %v",
						mt.name, time.Duration(mt.when), time.Duration(mt.latest), time.Duration(now), time.Duration(m.sp.deadline))
				}
			}
		case kindFunc:
			if mt.armed && mt.latest <= now {
				funcsDue = append(funcsDue, mt)
			}
		}
	}
	m.mu.Unlock()
	// An AfterFunc's callback runs in a goroutine of its own, which may
	// lag the firing: wait for the ones due.
	for _, mt := range funcsDue {
		ok := waitCond(func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			return !mt.armed || mt.when > now
		})
		if !ok {
			rt.Fatalf("%s, due at %v (by %v), has not run at %v: the driver sleeps to %v",
				mt.name, time.Duration(mt.when), time.Duration(mt.latest), time.Duration(now), time.Duration(m.sp.deadline))
		}
	}
	for _, s := range m.sleepers {
		if s.returned {
			continue
		}
		if s.latest <= now {
			select {
			case at := <-s.done:
				s.returned, s.returnedClock = true, at
			case <-time.After(5 * time.Second):
				rt.Fatalf("%s, due at %v (by %v), has not returned at %v", s.name, time.Duration(s.when), time.Duration(s.latest), time.Duration(now))
			}
		} else {
			select {
			case at := <-s.done:
				s.returned, s.returnedClock = true, at
			default:
				continue
			}
		}
		if s.returnedClock < s.when {
			rt.Fatalf("%s returned at %v, before its deadline %v", s.name, time.Duration(s.returnedClock), time.Duration(s.when))
		}
	}
}

// waitCond polls cond for up to 10 s of real time.
func waitCond(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Microsecond)
	}
	return true
}
