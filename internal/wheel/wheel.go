package wheel

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/percpu"
	"github.com/stashgo/stash/internal/stash"
	"github.com/stashgo/stash/poller"
)

// Config configures a Wheel. The caller has checked it: New trusts what it
// is given.
type Config struct {
	Clock    clock.Clock   // nil means the system monotonic clock
	Levels   []stash.Level // the store's geometry, coarsest first
	MaxBatch int           // timers a pass fires at most; 0 means 256
	// MaxSlack caps the precision rule's slack, in nanoseconds: 0 makes
	// every timer exact (see precision.go).
	MaxSlack int64
	// Poller is what the driver sleeps on; nil means poller.New.
	Poller func(clock.Clock) poller.Poller
	// OnPass, if set, is called with the clock reading at the start of
	// every pass on the system clock, by the holder of the consumer role.
	OnPass func(now int64)
}

// ErrClosed is returned by Close on a Wheel already closed.
var ErrClosed = errors.New("stashtime: wheel closed")

// A Wheel is the engine: the store, the intake, the near heap and the
// driver, and the counters they keep.
//
// See the package documentation for the lock order.
type Wheel struct {
	// Set by New, read by everyone, written by no one.
	clock    clock.Clock
	store    *stash.Store[Entry]
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
	onPass              func(now int64)
	drv                 *driver // changed only by the holder of the consumer role

	// Producers count what they arm and disarm, each P in a cell of its
	// own; see Live. holes counts the store slots they empty (see
	// compact.go).
	starts, stopped, holes *percpu.Counter

	// The fields above are read by every producer and written by none once
	// the wheel starts; the driver writes the ones below often. The pads
	// keep the two apart (cores fetch lines in adjacent pairs).
	_ [128]byte

	// sleepUntil is the deadline the driver sleeps to, or running while it
	// works. Producers lower it (wakeIfEarlier); the consumer raises it
	// (see wakeup.go).
	sleepUntil atomic.Int64
	// consumer is the consumer role (see consumer.go).
	consumer sync.Mutex
	// peepEnd is, while the driver sleeps toward a peeped bucket, the end
	// of what its walk will take in then, and 0 otherwise; peepAdds counts
	// the timers producers file before it meanwhile (see wakeFor).
	peepEnd, peepAdds atomic.Int64
	// intake's floor, which the driver raises every pass and producers of
	// far timers read, and its armed flag, which they read, share
	// sleepUntil's line, which they read anyway; its sweep's state follows.
	intake intake
	_      [128]byte

	// Counters: written by the driver's goroutine but where noted, and
	// read by anyone (Counts).
	fired, walks, cleans, compacts atomic.Int64 // fired: by producers too, for timers due at once
	ended                          atomic.Int64 // firings that disarmed a timer
	pollerErrors                   atomic.Int64 // Waits that failed (see run)
	wakes                          atomic.Int64 // Waits that ended (see run)
	late                           latency
	compaction                     compaction // reported: by producers (noteHole); at: by the consumer

	sleepers sync.Pool // of *sleeper, each received from (see SleepFor); anyone

	syncMu sync.Mutex
	syncs  []chan struct{} // Syncs waiting for the next round; under syncMu
	// callbacks counts the AfterFunc callbacks running, on a wheel off
	// the system clock, for Settle to wait for (see goCallback); under its
	// own mutex.
	callbacks callbackCount
	closed    atomic.Bool   // set once, by Close
	done      chan struct{} // closed once, as the driver ends for good

	// driverGone is set while no driver goroutine runs (see endDriver):
	// set by the driver as it ends, cleared by the one goroutine whose CAS
	// starts the next. restart is the runtime timer that brings it back,
	// set by the driver as it ends, and reset or stopped only by a
	// goroutine that has seen driverGone set (dropRestart, Close).
	driverGone atomic.Bool
	restart    *time.Timer
}

const running = math.MinInt64

// New starts a Wheel.
func New(cfg Config) (*Wheel, error) {
	c := cfg.Clock
	if c == nil {
		c = clock.System
	}
	st, err := stash.New[Entry](stash.Config{Levels: cfg.Levels}, uint64(max(c.Now(), 0)))
	if err != nil {
		return nil, fmt.Errorf("stashtime: Options.Levels: %w", err)
	}
	w := &Wheel{
		clock:    c,
		store:    st,
		system:   clock.IsSystem(c),
		bucket:   int64(st.Bucket()),
		maxBatch: cfg.MaxBatch,
		maxSlack: cfg.MaxSlack,
		onPass:   cfg.OnPass,
		done:     make(chan struct{}),
		starts:   percpu.NewCounter(),
		stopped:  percpu.NewCounter(),
		holes:    percpu.NewCounter(),
	}
	w.intake = newIntake(percpu.Shards())
	if w.maxBatch == 0 {
		w.maxBatch = 256
	}
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
	case cfg.Poller != nil:
		w.poller = cfg.Poller(c)
	case testPoller != nil:
		w.poller = testPoller(c)
	default:
		w.poller = poller.New(c)
	}
	// On the system clock the driver starts with the first timer (see
	// wakeIfEarlier and leave); on another, whose deadlines no runtime
	// timer can bring it back for, it runs from the start, and parks in
	// its poller when nothing is pending.
	if w.system {
		w.sleepUntil.Store(poller.NoDeadline)
		w.driverGone.Store(true)
	} else {
		w.sleepUntil.Store(running)
		go w.run()
	}
	w.compaction.at.Store(compactMin)
	return w, nil
}

// testPoller, when a test sets it, makes the poller of every new Wheel.
var testPoller func(clock.Clock) poller.Poller

// Close stops the wheel's driver and releases its poller. Timers still
// pending never fire. It returns ErrClosed if the wheel was already
// closed.
func (w *Wheel) Close() error {
	if !w.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	err := w.poller.Close()
	if w.driverGone.CompareAndSwap(true, false) {
		// No driver runs, and none will start: close as it would.
		if w.restart != nil {
			w.restart.Stop()
		}
		w.drv.acquire()
		close(w.done)
	}
	<-w.done
	w.intake.close()
	checkClosed(w)
	return err
}

// Closed reports whether Close has been called.
func (w *Wheel) Closed() bool { return w.closed.Load() }

// CheckOpen panics if w is closed: op would arm a timer that never fires.
func (w *Wheel) CheckOpen(op string) {
	if w.closed.Load() {
		panic("stashtime: " + op + " on closed Wheel")
	}
}

// System reports whether the wheel reads the system monotonic clock.
func (w *Wheel) System() bool { return w.system }

// Clock returns the clock the wheel reads.
func (w *Wheel) Clock() clock.Clock { return w.clock }

// MaxSlack returns the cap on the precision rule's slack.
func (w *Wheel) MaxSlack() int64 { return w.maxSlack }

// PollerKind names the poller the driver sleeps on.
func (w *Wheel) PollerKind() string { return w.poller.Kind() }

// Now reads the wheel's clock, without an interface call for the system
// clock.
func (w *Wheel) Now() int64 {
	if w.system {
		return clock.Mono()
	}
	return w.clock.Now()
}

// Sync waits until the driver has fired every timer due at the clock
// reading when Sync was called. It returns at once on a closed wheel.
func (w *Wheel) Sync() {
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

// Settle is Sync, and then, on a wheel off the system clock, waits until
// no AfterFunc callback is running.
func (w *Wheel) Settle() {
	w.Sync()
	if !w.system && !w.closed.Load() {
		w.callbacks.wait()
	}
}

// deadline turns a duration from now into an absolute deadline: d <= 0 is
// now, and an overflow clamps to math.MaxInt64 (never).
func deadline(now int64, d time.Duration) int64 {
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

// MaxBatch returns how many timers a pass fires at most.
func (w *Wheel) MaxBatch() int { return w.maxBatch }
