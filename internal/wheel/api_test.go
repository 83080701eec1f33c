package wheel

// The API the engine's tests drive it through: a thin copy of stashtime's
// Timer, Ticker and NewWheel, so that a test reads as a user's code does,
// with the engine's insides in reach.

import (
	"sync"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/stash"
	"github.com/stashgo/stash/poller"
)

type (
	Duration = time.Duration
	Time     = time.Time
	// A ManualClock is the tests' clock: it moves only when told to.
	ManualClock = clock.Manual
	Level       = stash.Level
	Clock       = clock.Clock
)

// NewManualClock returns a ManualClock reading 0 at start, as stashtime's
// does.
func NewManualClock(start time.Time) *ManualClock {
	m := clock.NewManual(0)
	m.Epoch = start
	return m
}

// Options are stashtime.Options, less the checks NewWheel makes there.
type Options struct {
	Clock          clock.Clock
	Levels         []stash.Level
	MaxBatch       int
	PortablePoller bool
	Slack          time.Duration
}

// NewWheel makes a Wheel as stashtime.NewWheel does.
func NewWheel(opts Options) (*Wheel, error) {
	levels := opts.Levels
	if levels == nil {
		levels = stash.DefaultLevels()
	}
	cfg := Config{Clock: opts.Clock, Levels: levels, MaxBatch: opts.MaxBatch, MaxSlack: SlackCap(opts.Slack)}
	if opts.PortablePoller {
		cfg.Poller = func(c clock.Clock) poller.Poller { return poller.NewPortable(c) }
	}
	return New(cfg)
}

// DefaultLevels is stash.DefaultLevels.
func DefaultLevels() []Level { return stash.DefaultLevels() }

type Timer struct {
	C <-chan time.Time
	e *Entry
	c chan time.Time // held for Stop and Reset, as stashtime's chanTimer does
}

type Ticker struct {
	C <-chan time.Time
	e *Entry
	c chan time.Time
}

func (t *Timer) Stop() bool                 { return t.e.Stop() }
func (t *Timer) Reset(d time.Duration) bool { return t.e.Reset(d) }
func (t *Ticker) Stop()                     { t.e.StopTicker() }
func (t *Ticker) Reset(d time.Duration)     { t.e.ResetTicker(d) }

func (w *Wheel) NewTimer(d time.Duration) *Timer {
	c, e := w.StartChan(w.Now(), d)
	return &Timer{C: c, e: e, c: c}
}

func (w *Wheel) After(d time.Duration) <-chan time.Time {
	c, _ := w.StartChan(w.Now(), d)
	return c
}

func (w *Wheel) AfterFunc(d time.Duration, f func()) *Timer {
	ft := &struct { // one allocation, held by the wheel, as stashtime's funcTimer
		t Timer
		e Entry
	}{}
	ft.t.e = &ft.e
	w.StartFunc(&ft.e, w.Now(), d, f)
	return &ft.t
}

func (w *Wheel) NewTicker(d time.Duration) *Ticker {
	c, e := w.StartTicker(w.Now(), d)
	return &Ticker{C: c, e: e, c: c}
}

func (w *Wheel) Tick(d time.Duration) <-chan time.Time { return w.NewTicker(d).C }

func (w *Wheel) Sleep(d time.Duration) {
	if d > 0 {
		w.SleepFor(w.Now(), d)
	}
}

// Stats is Counts, under the name the tests knew it by.
func (w *Wheel) Stats() Counts { return w.Counts() }

var (
	defaultOnce  sync.Once
	defaultWheel *Wheel
)

// Default is the tests' process-wide wheel, on the system clock with the
// zero Options, as stashtime's is; the package-level functions below use
// it.
func Default() *Wheel {
	defaultOnce.Do(func() {
		w, err := NewWheel(Options{})
		if err != nil {
			panic(err)
		}
		defaultWheel = w
	})
	return defaultWheel
}

func NewTimer(d time.Duration) *Timer            { return Default().NewTimer(d) }
func After(d time.Duration) <-chan time.Time     { return Default().After(d) }
func AfterFunc(d time.Duration, f func()) *Timer { return Default().AfterFunc(d, f) }
func NewTicker(d time.Duration) *Ticker          { return Default().NewTicker(d) }
func Tick(d time.Duration) <-chan time.Time      { return Default().Tick(d) }
func Sleep(d time.Duration)                      { Default().Sleep(d) }
