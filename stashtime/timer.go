package stashtime

import "github.com/stashgo/stash/internal/wheel"

// The Timer type represents a single event. When the Timer expires, the
// current time will be sent on C, unless the Timer was created by AfterFunc.
// A Timer must be created with NewTimer or AfterFunc.
//
// As in package time since Go 1.23, C has no stale values after Stop or
// Reset returns, and an unreferenced, unstopped Timer is collected.
type Timer struct {
	C <-chan Time
	e *wheel.Entry
}

// funcTimer puts an AfterFunc's Timer and its entry in one allocation: the
// wheel holds a func timer strongly anyway, as the runtime does.
type funcTimer struct {
	t Timer
	e wheel.Entry
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

func (w *Wheel) newTimer(now int64, d Duration) *Timer {
	c, e := w.eng.StartChan(now, d)
	ct := &chanTimer{t: Timer{C: c, e: e}, c: c}
	return &ct.t
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
	ft := &funcTimer{}
	ft.t.e = &ft.e
	w.eng.StartFunc(&ft.e, now, d, f)
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
	c, _ := w.eng.StartChan(w.begin("After"), d)
	return c
}

// Stop prevents the Timer from firing. It returns true if the call stops
// the timer, false if the timer has already expired (and its value been
// received) or been stopped. For a channel timer, no value from before Stop
// is received after Stop returns. For an AfterFunc timer, Stop does not wait
// for f to complete.
func (t *Timer) Stop() bool {
	if t.e == nil {
		panic("time: Stop called on uninitialized Timer")
	}
	return t.e.Stop()
}

// Reset changes the timer to expire after duration d. It returns true if
// the timer had been active (for a channel timer: armed, or expired with its
// value not yet received, which Reset discards), false if the timer had
// expired or been stopped.
//
// Resetting a pending timer to a later deadline stores the deadline in
// place; the wheel re-files it when its old deadline comes.
func (t *Timer) Reset(d Duration) bool {
	if t.e == nil {
		panic("time: Reset called on uninitialized Timer")
	}
	return t.e.Reset(d)
}
