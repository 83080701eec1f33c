package stashtime_test

// A randomized model test of rules 3-8 and 12: random sequences of
// NewTimer, AfterFunc, NewTicker, Stop, Reset (earlier and later), receives
// and clock advances on a manual-clock wheel, checked after every step
// against a plain model of what each timer must do. After each Advance +
// Sync the set of timers that fired must be exactly the set the model says
// is due, each value must be its deadline, and every Stop/Reset result must
// match rule 7's table.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

type modelKind int

const (
	modelChan modelKind = iota
	modelFunc
	modelTicker
)

func (k modelKind) String() string { return [...]string{"chan", "func", "ticker"}[k] }

// A modelTimer is one timer and what the model expects of it.
type modelTimer struct {
	id     int
	kind   modelKind
	tm     *stashtime.Timer
	tk     *stashtime.Ticker
	c      <-chan stdtime.Time
	armed  bool
	when   stdtime.Duration // deadline of the current arming (next tick)
	period stdtime.Duration // ticker
	// buffered is the value waiting in the channel, if any.
	buffered *stdtime.Duration
	// drops counts a ticker's firings in a row that found a value
	// buffered, for its backoff (see the kindTicker case of fire in
	// driver.go).
	drops uint32
}

// A funcRun is one run of an AfterFunc's f: which timer, and the clock
// reading when it ran.
type funcRun struct {
	id int
	at stdtime.Duration
}

type modelConfig struct {
	name     string
	opts     stashtime.Options
	steps    int
	duration func(r *rand.Rand) stdtime.Duration // for NewTimer, Reset, periods
	advance  func(r *rand.Rand) stdtime.Duration
}

func modelConfigs() []modelConfig {
	// Mostly short durations around the bucket width, sometimes far ones.
	short := func(r *rand.Rand) stdtime.Duration {
		switch r.IntN(10) {
		case 0:
			return stdtime.Duration(r.Int64N(int64(stdtime.Hour)))
		case 1:
			return stdtime.Duration(r.Int64N(3)) - 1 // -1, 0, 1
		default:
			return stdtime.Duration(r.Int64N(int64(6 * bucketNs)))
		}
	}
	shortAdvance := func(r *rand.Rand) stdtime.Duration {
		switch r.IntN(20) {
		case 0:
			return stdtime.Duration(r.Int64N(int64(stdtime.Hour)))
		case 1, 2:
			return 0
		default:
			return stdtime.Duration(r.Int64N(int64(2 * bucketNs)))
		}
	}
	// Durations of many spans of the tiny geometry: overflow and
	// revolutions all the time.
	long := func(r *rand.Rand) stdtime.Duration {
		switch r.IntN(8) {
		case 0:
			return stdtime.Duration(r.Int64N(int64(bucketNs)))
		case 1:
			return stdtime.Duration(1+r.Int64N(40)) * tinySpan // on a revolution boundary
		default:
			return stdtime.Duration(r.Int64N(int64(30 * tinySpan)))
		}
	}
	longAdvance := func(r *rand.Rand) stdtime.Duration {
		switch r.IntN(8) {
		case 0:
			return stdtime.Duration(r.Int64N(int64(8 * tinySpan)))
		default:
			return stdtime.Duration(r.Int64N(int64(tinySpan)))
		}
	}
	return []modelConfig{
		{"default_levels", stashtime.Options{}, 3000, short, shortAdvance},
		{"default_levels_batch2", stashtime.Options{MaxBatch: 2}, 2000, short, shortAdvance},
		{"tiny_levels", stashtime.Options{Levels: tinyLevels()}, 3000, long, longAdvance},
		{"tiny_levels_batch3", stashtime.Options{Levels: tinyLevels(), MaxBatch: 3}, 2000, long, longAdvance},
	}
}

func TestConformanceModel(t *testing.T) {
	for _, cfg := range modelConfigs() {
		t.Run(cfg.name, func(t *testing.T) {
			runModel(t, cfg, testRand(t))
		})
	}
}

func runModel(t *testing.T, cfg modelConfig, r *rand.Rand) {
	m := newTestWheel(t, cfg.opts)
	runs := make(chan funcRun, 1<<16)
	var timers []*modelTimer
	now := func() stdtime.Duration { return m.elapsed() }
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		n := min(len(log), 30)
		t.Fatalf("%s\nlast %d steps:\n  %s", fmt.Sprintf(format, args...), n, joinLines(log[len(log)-n:]))
	}
	pick := func() *modelTimer { return timers[r.IntN(len(timers))] }
	// newArming arms mt at now + d; a channel timer with d <= 0 has its
	// value at once.
	arm := func(mt *modelTimer, d stdtime.Duration) {
		mt.buffered = nil
		if mt.kind == modelChan && d <= 0 {
			v := now()
			mt.buffered, mt.armed = &v, false
			return
		}
		mt.armed, mt.when = true, now()+max(d, 0)
	}
	// stopResult is rule 7's answer for Stop or Reset in mt's state.
	stopResult := func(mt *modelTimer) bool {
		return mt.armed || mt.kind == modelChan && mt.buffered != nil
	}

	// advanceBy moves the clock by d, syncs, and checks that exactly the
	// timers the model says are due fired.
	advanceBy := func(step int, d stdtime.Duration) {
		m.advance(d)
		n := now()
		log = append(log, fmt.Sprintf("%d: advance %v to %v", step, d, n))
		var wantRuns []int
		for _, mt := range timers {
			if !mt.armed || mt.when > n {
				continue
			}
			switch mt.kind {
			case modelChan:
				w := mt.when
				mt.buffered, mt.armed = &w, false
			case modelFunc:
				wantRuns = append(wantRuns, mt.id)
				mt.armed = false
			case modelTicker:
				after := n // the next tick is the first after it
				if mt.buffered == nil {
					w := mt.when
					mt.buffered, mt.drops = &w, 0
				} else {
					mt.drops++
					after = stdtime.Duration(stashtime.TickerIdleAfter(int64(n), int64(mt.period), mt.drops))
				}
				late := after - mt.when
				mt.when += mt.period * (1 + late/mt.period)
			}
		}
		// Channels: exactly the model's values, nothing else.
		for _, mt := range timers {
			if mt.c == nil {
				continue
			}
			if got, want := len(mt.c), b2i(mt.buffered != nil); got != want {
				fail("step %d: after advancing to %v, #%d (%v, deadline %v) has %d values, want %d",
					step, n, mt.id, mt.kind, mt.when, got, want)
			}
		}
		// Funcs: exactly the due ones ran, each no earlier than its
		// deadline (the clock does not move while we wait).
		var gotRuns []int
		for range wantRuns {
			run := waitChan(t, runs, fmt.Sprintf("step %d: AfterFuncs due at %v", step, n))
			gotRuns = append(gotRuns, run.id)
			if run.at < timers[run.id].when {
				fail("step %d: f of #%d ran at %v, before its deadline %v", step, run.id, run.at, timers[run.id].when)
			}
		}
		slices.Sort(gotRuns)
		if !slices.Equal(gotRuns, wantRuns) {
			fail("step %d: after advancing to %v, funcs %v ran, want %v", step, n, gotRuns, wantRuns)
		}
	}

	steps := heavy(cfg.steps)
	for step := 0; step < steps; step++ {
		op := r.IntN(100)
		switch {
		case op < 12 || len(timers) == 0:
			if len(timers) >= 64 {
				continue
			}
			mt := &modelTimer{id: len(timers), kind: modelKind(r.IntN(3))}
			d := cfg.duration(r)
			switch mt.kind {
			case modelChan:
				mt.tm = m.NewTimer(d)
				mt.c = mt.tm.C
			case modelFunc:
				id := mt.id
				mt.tm = m.AfterFunc(d, func() { runs <- funcRun{id, m.elapsed()} })
			case modelTicker:
				d = max(d, 1)
				mt.tk = m.NewTicker(d)
				mt.c, mt.period = mt.tk.C, d
			}
			arm(mt, d)
			timers = append(timers, mt)
			log = append(log, fmt.Sprintf("%d: new %v #%d d=%v", step, mt.kind, mt.id, d))
			if mt.kind == modelFunc && d <= 0 {
				advanceBy(step, 0) // due now: the driver fires it on its own
			}
		case op < 30:
			mt := pick()
			log = append(log, fmt.Sprintf("%d: stop #%d (%v)", step, mt.id, mt.kind))
			if mt.kind == modelTicker {
				mt.tk.Stop()
				mt.armed, mt.buffered = false, nil
				break
			}
			want := stopResult(mt)
			if got := mt.tm.Stop(); got != want {
				fail("step %d: Stop of #%d (%v, armed=%v buffered=%v) = %v, want %v",
					step, mt.id, mt.kind, mt.armed, mt.buffered != nil, got, want)
			}
			mt.armed, mt.buffered = false, nil
		case op < 55:
			mt := pick()
			d := cfg.duration(r)
			log = append(log, fmt.Sprintf("%d: reset #%d (%v) d=%v (old deadline %v, now %v)", step, mt.id, mt.kind, d, mt.when, now()))
			if mt.kind == modelTicker {
				d = max(d, 1)
				mt.tk.Reset(d)
				mt.period = d
				arm(mt, d)
				break
			}
			want := stopResult(mt)
			if got := mt.tm.Reset(d); got != want {
				fail("step %d: Reset(%v) of #%d (%v, armed=%v buffered=%v) = %v, want %v",
					step, d, mt.id, mt.kind, mt.armed, mt.buffered != nil, got, want)
			}
			arm(mt, d)
			if mt.kind == modelFunc && d <= 0 {
				advanceBy(step, 0) // due now: the driver fires it on its own
			}
		case op < 70:
			mt := pick()
			if mt.c == nil {
				continue
			}
			log = append(log, fmt.Sprintf("%d: receive #%d (%v)", step, mt.id, mt.kind))
			v, ok := tryRecv(mt.c)
			switch {
			case ok && mt.buffered == nil:
				fail("step %d: #%d (%v) received %v, model has no value", step, mt.id, mt.kind, v.Sub(epoch))
			case !ok && mt.buffered != nil:
				fail("step %d: #%d (%v) has no value, model has %v", step, mt.id, mt.kind, *mt.buffered)
			case ok && !v.Equal(at(*mt.buffered)):
				fail("step %d: #%d (%v) received %v, want %v", step, mt.id, mt.kind, v.Sub(epoch), *mt.buffered)
			}
			mt.buffered = nil
		default:
			advanceBy(step, cfg.advance(r))
		}
	}
	// Nothing ran that should not have.
	advanceBy(steps, 0)
	stdtime.Sleep(2 * stdtime.Millisecond)
	if len(runs) != 0 {
		run := <-runs
		fail("f of #%d ran unexpectedly at %v", run.id, run.at)
	}
	for _, mt := range timers {
		if mt.tk != nil {
			mt.tk.Stop()
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func joinLines(ls []string) string {
	s := ""
	for i, l := range ls {
		if i > 0 {
			s += "\n  "
		}
		s += l
	}
	return s
}
