package stashtime

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/stash"
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
var ErrClosed = errors.New("stashtime: wheel closed")

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
	clock    Clock
	store    *stash.Store[entry]
	poller   poller.Poller
	bucket   int64
	reach    int64 // how far ahead of now a timer is filed at most (see file)
	farMin   int64 // how far ahead of now a far timer is filed at least
	system   bool  // clock is the system monotonic clock
	maxBatch int
	// maxSlack caps the precision rule's slack, and lookahead is how far
	// ahead of the clock the consumer takes timers into the near heap
	// (see precision.go).
	maxSlack, lookahead int64
	drv                 *driver

	// Producers count what they arm and disarm in counters, each P on a
	// cache line of its own; see live. holes counts the store slots they
	// empty (see compact.go).
	starts, stopped, holes counter

	// The fields above are read by every producer and written by none once
	// the wheel starts; the driver writes the ones below often. The pads
	// keep the two apart (cores fetch lines in adjacent pairs).
	_ [128]byte

	// sleepUntil is the deadline the driver sleeps to, or running while it
	// works. A producer whose deadline is earlier lowers it and wakes the
	// poller; only the producer that lowers it pays the system call.
	sleepUntil atomic.Int64
	// consumer is the consumer role (see consumer.go). helpAt is when
	// a timer is due to fire: sleepUntil but for the wake-ups producers
	// ask for to have the intake drained, which need no help.
	consumer sync.Mutex
	helpAt   atomic.Int64
	// peepEnd is, while the driver sleeps toward a peeped bucket, the end
	// of what its walk will take in then, and 0 otherwise; peepAdds counts
	// the timers producers file before it meanwhile (see wakeFor).
	peepEnd, peepAdds atomic.Int64
	// intake's floor, which the driver raises every pass and producers of
	// far timers read, and its armed flag, which they read, share
	// sleepUntil's line, which they read anyway; its sweep's state follows.
	intake intake
	_      [128]byte

	fired, walks, cleans, compacts atomic.Int64
	helped, helpedFired            atomic.Int64 // passes run by goroutines other than the driver's, and their firings
	ended                          atomic.Int64 // firings that disarmed a timer; the driver's
	pollerErrors                   atomic.Int64 // Waits that failed (see run)
	wakes                          atomic.Int64 // Waits that ended (see run)
	late                           latency
	compaction                     compaction

	sleepers sync.Pool // of *chanTimer, each received from (see sleep)

	syncMu sync.Mutex
	syncs  []chan struct{}
	// callbacks counts the AfterFunc callbacks running, on a wheel off
	// the system clock, for Settle to wait for (see goCallback).
	callbacks callbackCount
	closed    atomic.Bool
	done      chan struct{}

	// gone is set while no driver goroutine runs (see leave); revive is
	// the runtime timer that brings it back, set by the driver as it
	// leaves, and reset or stopped only by a goroutine that has seen gone
	// set (dropRevive, Close).
	gone   atomic.Bool
	revive *time.Timer
}

const running = math.MinInt64

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
	st, err := stash.New[entry](stash.Config{Levels: levels}, uint64(max(c.Now(), 0)))
	if err != nil {
		// storeLevels checks what the store does.
		return nil, fmt.Errorf("stashtime: Options.Levels: %w", err)
	}
	w := &Wheel{
		clock:    c,
		store:    st,
		system:   clock.IsSystem(c),
		bucket:   int64(st.Bucket()),
		maxBatch: opts.MaxBatch,
		done:     make(chan struct{}),
		starts:   newCounter(),
		stopped:  newCounter(),
		holes:    newCounter(),
	}
	w.intake = newIntake(shardCount())
	if w.maxBatch == 0 {
		w.maxBatch = 256
	}
	w.maxSlack = slackOption(opts.Slack)
	w.lookahead = lookaheadFor(w.maxSlack)
	w.drv = &driver{w: w, aheadAt: math.MaxInt64}
	w.reach = int64(st.Span() / 2)
	if w.bucket <= math.MaxInt64>>30 {
		w.reach = min(w.reach, w.bucket<<30)
	}
	if w.reach < 4*w.bucket {
		// A store this small keeps far timers in its overflow area
		// anyway; filing them a bucket or two ahead would only make the
		// driver meet them again and again.
		w.reach = math.MaxInt64
	}
	w.farMin = min(exactWithin/2, w.reach-reachGrain(w.reach))
	switch {
	case testPoller != nil:
		w.poller = testPoller(c)
	case opts.PortablePoller:
		w.poller = poller.NewPortable(c)
	default:
		w.poller = poller.New(c)
	}
	// On the system clock the driver starts with the first timer (see
	// wakeIfEarlier and leave); on another, whose deadlines no runtime
	// timer can bring it back for, it runs from the start, and parks in
	// its poller when nothing is pending.
	if w.system {
		w.sleepUntil.Store(poller.NoDeadline)
		w.gone.Store(true)
	} else {
		w.sleepUntil.Store(running)
		go w.run()
	}
	w.helpAt.Store(math.MaxInt64)
	w.compaction.at.Store(compactMin)
	return w, nil
}

// testPoller, when a test sets it, makes the poller of every new Wheel.
var testPoller func(Clock) poller.Poller

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
	if !w.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	err := w.poller.Close()
	if w.gone.CompareAndSwap(true, false) {
		// No driver runs, and none will start: close as it would.
		if w.revive != nil {
			w.revive.Stop()
		}
		w.drv.acquire()
		close(w.done)
	}
	<-w.done
	w.intake.close()
	checkClosed(w)
	return err
}

// Now returns the wheel's clock reading as a Time.
func (w *Wheel) Now() Time {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return time.Now()
		}
	}
	return w.clock.Time(w.now())
}

// now reads the wheel's clock, without an interface call for the system
// clock.
func (w *Wheel) now() int64 {
	if w.system {
		return clock.Mono()
	}
	return w.clock.Now()
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
	return w.poller.Kind()
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
	ch := make(chan struct{})
	w.syncMu.Lock()
	w.syncs = append(w.syncs, ch)
	w.syncMu.Unlock()
	w.wakeIfEarlier(math.MinInt64 + 1) // starts the driver if it has left
	w.poller.Wake()
	select {
	case <-ch:
	case <-w.done:
	}
}

// Settle is Sync, and then, on a wheel with a Clock of its own (a
// ManualClock), waits until no AfterFunc callback is running, so that what
// the callbacks did can be read at once: Advance, then Settle, then look.
// A callback that calls Settle, or that blocks until the caller of Settle
// acts, deadlocks it. On the system clock it is Sync.
func (w *Wheel) Settle() {
	w.Sync()
	if !w.system && !w.closed.Load() {
		w.callbacks.wait()
	}
}

// deadline turns a duration from now into an absolute deadline: d <= 0 is
// now, and an overflow clamps to math.MaxInt64 (never).
func deadline(now int64, d Duration) int64 {
	if d <= 0 {
		return now
	}
	if when := now + int64(d); when >= now {
		return when
	}
	return math.MaxInt64
}

// bucketOf returns the first key of the bucket holding when.
func (w *Wheel) bucketOf(when int64) int64 { return when - when%w.bucket }

// bucketNum names the bucket starting at b by its index modulo 2^32. A live
// holder lies less than 2^30 buckets ahead of the clock (see file) and,
// unless the driver lags 2^31 buckets behind it, less than 2^31 behind, so
// bucketStart recovers its start from the name and a clock reading. (A
// stale holder whose name aliases the live one's, 2^32 buckets away, is
// taken for it; the entry's pending flag still lets it fire only once.)
func (w *Wheel) bucketNum(b int64) uint32 { return uint32(b / w.bucket) }

// bucketStart is the first key of the bucket named n that lies within 2^31
// buckets of the one holding ref.
func (w *Wheel) bucketStart(n uint32, ref int64) int64 {
	r := ref / w.bucket
	return (r + int64(int32(n-uint32(r)))) * w.bucket
}
