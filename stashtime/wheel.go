package stashtime

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/epoch"
	"github.com/stashgo/stash/internal/stash"
	"github.com/stashgo/stash/internal/wheel"
	"github.com/stashgo/stash/poller"
)

// A Clock is a monotonic clock a Wheel reads deadlines from: Now in
// nanoseconds, never negative and never decreasing, and Time to turn a
// reading into a Time. NewWheel refuses a Clock whose first reading is
// negative; one that goes negative or backwards later may leave timers
// unfired until it reads past their deadlines again.
type Clock = clock.Clock

// A Level is one level of a Wheel's store: deadline d (a reading of the
// wheel's clock, in nanoseconds) maps to slot (d / Div) % Mod of that
// level, whose slots are allocated Chunk at a time as they are first used.
// Div and Mod must be positive, Mod at most 65536, and Div*Mod must fit in
// a uint64; Chunk zero means 16, or Mod if that is less. Options.Levels
// says how the levels of a Wheel fit together.
type Level = stash.Level

// Options configure a Wheel made by NewWheel. The zero value is the
// configuration of the process-wide wheel.
type Options struct {
	// Clock the wheel reads; nil means the system monotonic clock.
	Clock Clock
	// Levels of the store, coarsest first, at most 16; nil means
	// DefaultLevels. Each level's Div*Mod must equal the Div of the level
	// before; the last level's Div is the bucket width in nanoseconds, at
	// most math.MaxInt64. For example, {Div: 1 << 29, Mod: 512} over
	// {Div: 1 << 20, Mod: 512} spans 2^38 ns (about 4.6 minutes) in
	// buckets of 2^20 ns (about 1 ms).
	Levels []Level
	// MaxBatch bounds how many timers the driver fires before it looks for
	// newly added earlier ones and yields its thread; 0 means 256.
	MaxBatch int
	// PortablePoller forces the portable poller even where epoll exists.
	PortablePoller bool
	// Slack caps how long after its deadline a timer may fire (see the
	// precision rule in the package documentation): 0 means DefaultSlack,
	// a negative Slack makes every timer fire at its deadline, and a
	// Slack above about 1 ms counts as that.
	Slack Duration
}

// DefaultLevels returns the store geometry of the process-wide wheel: four
// levels of 512 slots over buckets of 2^20 ns (about 1 ms), spanning 2^56 ns
// (about 2.28 years). A timer due further ahead than 2^30 buckets (about 13
// days) is filed that far ahead and filed again when the wheel gets there.
func DefaultLevels() []Level { return stash.DefaultLevels() }

// ErrClosed is returned by Close on a Wheel already closed.
var ErrClosed = wheel.ErrClosed

// A Wheel runs timers on one lock-free hierarchical timer wheel driven by one
// goroutine that sleeps in the poller. The package-level functions use a
// process-wide Wheel started on first use; NewWheel makes independent ones.
//
// Once a Wheel is closed, NewTimer, After, AfterFunc, NewTicker, Tick,
// Sleep, and the Reset of its timers and tickers panic ("stashtime: ... on
// closed Wheel"), as a send on a closed channel does, rather than arm a
// timer that would never fire; Stop still works. The methods that start a
// timer (all of those but Reset) also panic when called from inside a
// testing/synctest bubble: the timer's channel would belong to the bubble,
// which the driver, outside it, must not touch. (The package-level
// functions hand their work to package time there.)
type Wheel struct {
	eng *wheel.Wheel // nil in bubbleDefault alone
}

// NewWheel starts a Wheel. Close it when done. It returns an error for
// options no wheel can run on: a negative MaxBatch, a nil pointer as the
// Clock, a Clock reading below zero, or Levels other than Level and
// Options.Levels describe.
func NewWheel(opts Options) (*Wheel, error) {
	c := opts.Clock
	if c == nil {
		c = clock.System
	}
	if opts.MaxBatch < 0 {
		return nil, errors.New("stashtime: negative MaxBatch")
	}
	levels, err := storeLevels(opts.Levels)
	if err != nil {
		return nil, err
	}
	if err := checkOptions(c); err != nil {
		return nil, err
	}
	cfg := wheel.Config{
		Clock:    c,
		Levels:   levels,
		MaxBatch: opts.MaxBatch,
		MaxSlack: wheel.SlackCap(opts.Slack),
		OnPass:   epoch.Advance, // the coarse clock of stashnet's idle timeouts
	}
	if opts.PortablePoller {
		cfg.Poller = func(c Clock) poller.Poller { return poller.NewPortable(c) }
	}
	eng, err := wheel.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Wheel{eng: eng}, nil
}

var (
	defaultMu    sync.Mutex
	defaultWheel atomic.Pointer[Wheel]
)

// Default returns the process-wide Wheel that the package-level functions
// use, starting it on first use. It is never closed: its Close returns
// ErrCloseDefault and leaves it running.
//
// Inside a testing/synctest bubble its methods, as those of any Wheel on
// the system clock, hand their work to package time, on the bubble's
// clock, as the package-level functions do. A first call from inside a
// bubble does not start the wheel (its channels would be the bubble's): it
// returns a stand-in whose methods do the same there, and go to the
// process-wide wheel outside.
func Default() *Wheel {
	if w := defaultWheel.Load(); w != nil {
		return w
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if w := defaultWheel.Load(); w != nil {
		return w
	}
	if inBubble() {
		return bubbleDefault // see bubble.go
	}
	w, err := NewWheel(Options{})
	if err != nil {
		panic(err.Error())
	}
	defaultWheel.Store(w)
	return w
}

// Close stops the wheel's driver and releases its poller. Timers still
// pending never fire, and a Sleep on w in progress never returns. Close
// returns ErrClosed if the wheel was already closed, and ErrCloseDefault,
// leaving it running, on the process-wide wheel.
func (w *Wheel) Close() error {
	if w == defaultWheel.Load() || w == bubbleDefault {
		return ErrCloseDefault
	}
	return w.eng.Close()
}

// Now returns the wheel's clock reading as a Time.
func (w *Wheel) Now() Time {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return time.Now()
		}
	}
	return w.eng.Clock().Time(w.eng.Now())
}

// Poller names the poller the driver sleeps on: "epoll" or "portable".
// Inside a testing/synctest bubble, where the runtime's timers serve a
// Wheel on the system clock, it is "portable".
func (w *Wheel) Poller() string {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return poller.KindPortable
		}
	}
	return w.eng.PollerKind()
}

// Sync waits until the driver has fired every timer due at the clock
// reading when Sync was called. With a ManualClock it makes tests
// deterministic: Advance, then Sync, then look at channels. It does not
// wait for the AfterFunc callbacks it started: Settle does. It returns at
// once on a closed wheel.
func (w *Wheel) Sync() {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return // package time's timers serve the bubble
		}
	}
	w.eng.Sync()
}

// Settle is Sync, and then, on a wheel with a Clock of its own (a
// ManualClock), waits until no AfterFunc callback is running, so that what
// the callbacks did can be read at once: Advance, then Settle, then look.
// A callback that calls Settle, or that blocks until the caller of Settle
// acts, deadlocks it. On the system clock it is Sync.
func (w *Wheel) Settle() {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return // package time's timers serve the bubble
		}
	}
	w.eng.Settle()
}
