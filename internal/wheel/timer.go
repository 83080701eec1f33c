package wheel

import (
	"time"
	"unsafe"

	"github.com/stashgo/stash/internal/percpu"
)

// The engine's surface for the timers of package stashtime: start an entry
// of each kind, and stop or reset one. Each call here runs the whole arm or
// stop protocol (lock, change, unlock, then notify or dropRestart), so that
// no caller can leave the wake-up rule to remember.

// StartChan starts a channel timer due d after now and returns its channel
// and entry. A timer due now has its value in the channel on return.
func (w *Wheel) StartChan(now int64, d time.Duration) (chan time.Time, *Entry) {
	c := make(chan time.Time, 1)
	e := &Entry{w: w, kind: kindChan}
	e.holdCh(c) // weakened if it lives long (see intake.go)
	when := deadline(now, d)
	if d <= 0 {
		c <- w.clock.Time(when) // due now: receivable before NewTimer returns
		w.fired.Add(1)
		return c, e
	}
	w.start(e, now, when)
	return c, e
}

// StartFunc starts e, a zero Entry (one the caller embeds, so that its
// timer and entry are one allocation), as an AfterFunc timer due d after
// now. A timer due now has started f in its goroutine on return.
func (w *Wheel) StartFunc(e *Entry, now int64, d time.Duration, f func()) {
	e.w, e.kind = w, kindFunc
	if f == nil {
		f = nilFunc // accepted, and crashes when it fires, as in package time
	}
	e.setFn(f)
	if d <= 0 {
		// Due now: f starts before AfterFunc returns, as a channel
		// timer's value is sent, with no round trip through the driver.
		w.fired.Add(1)
		w.goCallback(f)
		return
	}
	w.start(e, now, deadline(now, d))
}

// StartTicker starts a ticker of period d > 0 and returns its channel and
// entry.
func (w *Wheel) StartTicker(now int64, d time.Duration) (chan time.Time, *Entry) {
	c := make(chan time.Time, 1)
	te := &tickerEntry{Entry: Entry{w: w, kind: kindTicker}, period: int64(d)}
	te.holdCh(c) // weakened once it outlives a collection (see intake.go)
	w.start(&te.Entry, now, deadline(now, d))
	return c, &te.Entry
}

// StdTimer and StdTicker return entries that stand for a timer or ticker
// of package time, made inside a testing/synctest bubble: Stop and Reset
// go to it.
func StdTimer(t *time.Timer) *Entry   { return &Entry{kind: kindStdTimer, ref: unsafe.Pointer(t)} }
func StdTicker(t *time.Ticker) *Entry { return &Entry{kind: kindStdTicker, ref: unsafe.Pointer(t)} }

// nilFunc stands in for AfterFunc's nil f. Package time accepts a nil f and
// dies with "fatal error: go of nil func value" when the timer fires; so
// does stashtime, in the callback's goroutine, with a message that names
// the mistake.
func nilFunc() { panic("stashtime: AfterFunc's f is nil (go of nil func value)") }

// start arms a new entry, not yet visible to anyone else, at when.
func (w *Wheel) start(e *Entry, now, when int64) {
	e.pending = true
	e.setWhen(when)
	p := percpu.ProcID()
	w.starts.AddOn(p, 1)
	// The entry is left closed (see Entry.unlock): the first Reset opens
	// it, so a timer stopped without one costs no atomic store for it.
	if w.listNew(e, now, when, p) {
		return
	}
	// file records the slot after the store has published e, and from
	// then on the driver may meet e and rewrite its holder under e.mu.
	e.mu.Lock()
	w.place(e, now, p)
	e.weakenLater(now)
	e.mu.Unlock()
	w.notify(e, now, when)
}

// Stop stops a timer: see stashtime's Timer.Stop.
func (e *Entry) Stop() bool {
	if e.kind == kindStdTimer {
		return e.stdTimer().Stop()
	}
	e.lock()
	stopped := e.disarm()
	e.dropHolder()
	// A channel timer's value is sent only as it stops being pending, so
	// a pending one has nothing to discard.
	if !stopped && e.isChan() && e.discardValue() {
		stopped = true
	}
	e.unlock()
	if stopped {
		e.w.dropRestart()
	}
	return stopped
}

// Reset re-arms a timer d from now: see stashtime's Timer.Reset.
func (e *Entry) Reset(d time.Duration) bool {
	if e.kind == kindStdTimer {
		return e.stdTimer().Reset(d)
	}
	w := e.w
	w.CheckOpen("Timer.Reset")
	// Moving a pending timer's deadline later is one CAS after the clock
	// read, while the entry is open (see Entry.unlock), and while the
	// slack is at its cap, from half the lookahead on (see lookaheadFor):
	// a later deadline with less slack could be due sooner than the one
	// the driver sleeps toward.
	var now int64
	read := false
	if d > 0 && int64(d) >= w.lookahead/2 && e.dl.Load() < 0 {
		now, read = w.Now(), true
		if when := deadline(now, d); e.resetLater(when) {
			checkArmed(e, now, when)
			return true
		}
	}
	// Otherwise arm names the holder's bucket relative to now, which must
	// not predate the last filing by 2^30 buckets (see bucketNum). A
	// reading of the system clock taken just before the lock is only a
	// scheduling delay old; another clock (a ManualClock) may jump that far
	// at any moment, so it is read under the lock.
	e.lock()
	if !read || !w.system {
		now = w.Now()
	}
	when := deadline(now, d)
	discarded := false
	if e.isChan() {
		discarded = !e.pending && e.discardValue()
		if d <= 0 {
			was := e.disarm()
			e.dropHolder()
			if c := e.ch(); c != nil {
				c <- w.clock.Time(when)
			}
			w.fired.Add(1)
			e.unlock()
			return was || discarded
		}
	} else if d <= 0 && e.kind == kindFunc { // due now: f starts at once
		was := e.disarm()
		e.dropHolder()
		f := e.fn()
		w.fired.Add(1)
		e.unlock()
		w.goCallback(f)
		return was
	}
	was := e.arm(now, when)
	e.unlock()
	w.notify(e, now, when)
	return was || discarded
}

// StopTicker stops a ticker: see stashtime's Ticker.Stop.
func (e *Entry) StopTicker() {
	if e.kind == kindStdTicker {
		e.stdTicker().Stop()
		return
	}
	e.lock()
	stopped := e.disarm()
	e.dropHolder()
	e.discardValue()
	e.unlock()
	if stopped {
		e.w.dropRestart()
	}
}

// ResetTicker restarts a ticker with period d > 0: see stashtime's
// Ticker.Reset.
func (e *Entry) ResetTicker(d time.Duration) {
	if e.kind == kindStdTicker {
		e.stdTicker().Reset(d)
		return
	}
	w := e.w
	w.CheckOpen("Ticker.Reset")
	e.lock() // before the clock read, as in Reset
	now := w.Now()
	when := deadline(now, d)
	e.discardValue()
	e.ticker().period = int64(d)
	e.arm(now, when)
	e.unlock()
	w.notify(e, now, when)
}

// discardValue discards a value waiting in the entry's channel and reports
// whether there was one. e.mu is held.
func (e *Entry) discardValue() bool {
	mustHold(e)
	c := e.ch()
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A sleeper is a channel timer of the pool Sleep draws from.
type sleeper struct {
	c chan time.Time
	e *Entry
}

// SleepFor blocks until d after now, on a channel timer of w's pool of them: a
// sleeper owns its timer, so once the value has been received the timer is
// as good as new, and arming it again (as a Reset does) costs no
// allocation. d > 0.
func (w *Wheel) SleepFor(now int64, d time.Duration) {
	s, _ := w.sleepers.Get().(*sleeper)
	if s == nil {
		c, e := w.StartChan(now, d)
		s = &sleeper{c: c, e: e}
	} else {
		e := s.e
		when := deadline(now, d)
		e.lock()
		e.arm(now, when)
		e.unlock()
		w.notify(e, now, when)
	}
	<-s.c
	w.sleepers.Put(s)
}

// Std reports whether e stands for a timer or ticker of package time (see
// StdTimer).
func (e *Entry) Std() bool { return e.kind == kindStdTimer || e.kind == kindStdTicker }
