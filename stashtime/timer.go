package stashtime

// The Timer type represents a single event. When the Timer expires, the
// current time will be sent on C, unless the Timer was created by AfterFunc.
// A Timer must be created with NewTimer or AfterFunc.
//
// As in package time since Go 1.23, C has no stale values after Stop or
// Reset returns, and an unreferenced, unstopped Timer is collected.
type Timer struct {
	C <-chan Time
	e *entry
}

// funcTimer puts an AfterFunc's Timer and its entry in one allocation: the
// wheel holds a func timer strongly anyway, as the runtime does.
type funcTimer struct {
	t Timer
	e entry
}

// A chanTimer is a channel Timer with a reference to its channel of its own:
// the user may overwrite C, and the wheel refers to the channel weakly, so
// without it the channel could be collected while the Timer lives on, and
// Stop and Reset would report on a timer whose value nobody can discard.
type chanTimer struct {
	t Timer
	c chan Time
}

// NewTimer creates a new Timer on w that will send the current time on its
// channel after at least duration d.
func (w *Wheel) NewTimer(d Duration) *Timer {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return NewTimer(d)
		}
	}
	return w.newTimer(w.begin("NewTimer"), d)
}

func (w *Wheel) newTimer(now int64, d Duration) *Timer { return &w.newChanTimer(now, d).t }

func (w *Wheel) newChanTimer(now int64, d Duration) *chanTimer {
	c, e := w.newChan(now, d)
	return &chanTimer{t: Timer{C: c, e: e}, c: c}
}

// newChan starts a channel timer and returns its channel and entry.
func (w *Wheel) newChan(now int64, d Duration) (chan Time, *entry) {
	c := make(chan Time, 1)
	e := &entry{w: w, kind: kindChan}
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

// AfterFunc waits on w for the duration to elapse and then calls f in its
// own goroutine. It returns a Timer that can be used to cancel the call
// using its Stop method. The returned Timer's C field is nil.
func (w *Wheel) AfterFunc(d Duration, f func()) *Timer {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return AfterFunc(d, f)
		}
	}
	return w.afterFunc(w.begin("AfterFunc"), d, f)
}

func (w *Wheel) afterFunc(now int64, d Duration, f func()) *Timer {
	ft := &funcTimer{e: entry{w: w, kind: kindFunc}}
	if f == nil {
		f = nilFunc // accepted, and crashes when it fires, as in package time
	}
	ft.e.setFn(f)
	ft.t.e = &ft.e
	if d <= 0 {
		// Due now: f starts before AfterFunc returns, as a channel
		// timer's value is sent, with no round trip through the driver.
		w.fired.Add(1)
		w.goCallback(f)
		return &ft.t
	}
	w.start(&ft.e, now, deadline(now, d))
	return &ft.t
}

// After waits for the duration to elapse and then sends the current time on
// the returned channel. It is NewTimer(d).C.
func (w *Wheel) After(d Duration) <-chan Time {
	if testBinary() {
		var toTime bool
		if w, toTime = w.forTest(); toTime {
			return After(d)
		}
	}
	c, _ := w.newChan(w.begin("After"), d)
	return c
}

// start arms a new entry, not yet visible to anyone else, at when.
func (w *Wheel) start(e *entry, now, when int64) {
	e.pending = true
	e.setWhen(when)
	p := procID()
	w.starts.addOn(p, 1)
	// The entry is left closed (see entry.unlock): the first Reset opens
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

// Stop prevents the Timer from firing. It returns true if the call stops
// the timer, false if the timer has already expired (and its value been
// received) or been stopped. For a channel timer, no value from before Stop
// is received after Stop returns. For an AfterFunc timer, Stop does not wait
// for f to complete.
func (t *Timer) Stop() bool {
	e := t.e
	if e == nil {
		panic("time: Stop called on uninitialized Timer")
	}
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
		e.w.dropRevive()
	}
	return stopped
}

// Reset changes the timer to expire after duration d. It returns true if
// the timer had been active (for a channel timer: armed, or expired with its
// value not yet received, which Reset discards), false if the timer had
// expired or been stopped.
//
// Resetting a pending timer to a later deadline stores the deadline in
// place; the wheel re-files it when its old deadline comes.
func (t *Timer) Reset(d Duration) bool {
	e := t.e
	if e == nil {
		panic("time: Reset called on uninitialized Timer")
	}
	if e.kind == kindStdTimer {
		return e.stdTimer().Reset(d)
	}
	w := e.w
	w.checkOpen("Timer.Reset")
	// Moving a pending timer's deadline later is one CAS after the clock
	// read, while the entry is open (see entry.unlock), and while the
	// slack is at its cap, from half the lookahead on (see lookaheadFor):
	// a later deadline with less slack could be due sooner than the one
	// the driver sleeps toward.
	var now int64
	read := false
	if d > 0 && int64(d) >= w.lookahead/2 && e.dl.Load() < 0 {
		now, read = w.now(), true
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
		now = w.now()
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

// discardValue discards a value waiting in the entry's channel and reports
// whether there was one. e.mu is held.
func (e *entry) discardValue() bool {
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
